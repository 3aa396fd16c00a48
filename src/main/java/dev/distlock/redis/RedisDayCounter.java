package dev.distlock.redis;

import dev.distlock.id.IdGenerationException;
import dev.distlock.spi.id.DayCounter;
import dev.distlock.spi.id.SegmentStore;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The count of one daily serial's numbers in one Redis hash, {@code <prefix>:serial:<name>}.
 *
 * <p>The hash records which Redis server it was written on (the process's run id and its
 * replication id): a hash found on another server (a replica promoted by a failover, which may not
 * have seen the last numbers), a restarted one (a snapshot older than the last numbers) or no hash
 * at all is never counted on. A range is installed at most once and only on the server that asked
 * for it, so a command retried on another server cannot install it twice.
 *
 * <p>The day is Redis's: the scripts read Redis's clock, so every node turns to the next day at the
 * same instant whatever its own clock says.
 */
public final class RedisDayCounter implements DayCounter {

    private static final long STATE_TTL_SECONDS = Duration.ofDays(3).toSeconds();
    private static final Next[] NEXT = {Next.NONE, Next.PREFETCH, Next.REFILL, Next.WAIT};

    /** Redis's day in the caller's zone, and the identity of the server the script runs on. */
    private static final String WHERE_AND_WHEN = """
            local t = redis.call('TIME')
            local seconds = tonumber(t[1])
            local ms = seconds * 1000 + math.floor(tonumber(t[2]) / 1000)
            local offset = tonumber(ARGV[1])
            if seconds >= tonumber(ARGV[2]) then offset = tonumber(ARGV[3]) end
            local day = math.floor((seconds + offset) / 86400)
            local runId = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
            local replId = string.match(redis.call('INFO', 'replication'), 'master_replid:(%x+)')
            if not runId or not replId then
              return redis.error_reply('distlock: INFO shows this script no run_id or master_replid (Redis 4 or later, with INFO allowed in scripts, is needed)')
            end
            local server = runId .. '/' .. replId
            """;

    /**
     * Takes today's next number if the hash holds today's range, written on this server, not used
     * up. Returns {day, serial (0 if none), action, server}. ARGV[4] '1' checks the server,
     * ARGV[5] claim millis, ARGV[6] prefetch when fewer than this many are left.
     */
    private static final String TAKE = WHERE_AND_WHEN + """
            local s = redis.call('HMGET', KEYS[1], 'day', 'server', 'next', 'limit', 'claim_day', 'claim_until')
            local claimFree = not (tonumber(s[5]) == day and tonumber(s[6]) > ms)
            if tonumber(s[1]) == day and (ARGV[4] == '0' or s[2] == server) then
              local n = tonumber(s[3])
              local limit = tonumber(s[4])
              if n <= limit then
                redis.call('HSET', KEYS[1], 'next', n + 1)
                local action = 0
                if limit - n < tonumber(ARGV[6]) and claimFree then
                  redis.call('HSET', KEYS[1], 'claim_day', day, 'claim_until', ms + tonumber(ARGV[5]))
                  action = 1
                end
                return {day, n, action, server}
              end
            end
            if claimFree then
              redis.call('HSET', KEYS[1], 'claim_day', day, 'claim_until', ms + tonumber(ARGV[5]))
              return {day, 0, 2, server}
            end
            return {day, 0, 3, server}
            """;

    /**
     * Installs range ARGV[6]..ARGV[7] of day ARGV[5], leased for server ARGV[8]; 1 if installed.
     * Refused when the day or the server changed since, when the hash already holds this range or a
     * later one of the day (a retried call), or when the current range is not used up and this one
     * does not follow it (it is skipped: a gap).
     */
    private static final String INSTALL = WHERE_AND_WHEN + """
            if day ~= tonumber(ARGV[5]) or (ARGV[4] == '1' and server ~= ARGV[8]) then return 0 end
            local s = redis.call('HMGET', KEYS[1], 'day', 'server', 'next', 'limit', 'claim_day')
            if tonumber(s[5]) == day then redis.call('HDEL', KEYS[1], 'claim_day', 'claim_until') end
            local first = tonumber(ARGV[6])
            local last = tonumber(ARGV[7])
            local sameDay = tonumber(s[1]) == day
            if sameDay and tonumber(s[4]) >= first then return 0 end
            if sameDay and (ARGV[4] == '0' or s[2] == server) and tonumber(s[3]) <= tonumber(s[4]) then
              if first ~= tonumber(s[4]) + 1 then return 0 end
              redis.call('HSET', KEYS[1], 'limit', last)
            else
              redis.call('HSET', KEYS[1], 'day', day, 'server', server, 'next', first, 'limit', last)
            end
            redis.call('EXPIRE', KEYS[1], ARGV[9])
            return 1
            """;

    private final String name;
    private final Supplier<RedissonClient> redis;
    private final String key;
    /** Off only in the tests that show what the server check prevents. */
    private final boolean checkServer;

    /** The count of daily serial {@code name}, under {@code keyPrefix}, in the Redis that {@code redis} reaches. */
    public RedisDayCounter(String name, Supplier<RedissonClient> redis, String keyPrefix) {
        this(name, redis, keyPrefix, true);
    }

    RedisDayCounter(String name, Supplier<RedissonClient> redis, String keyPrefix, boolean checkServer) {
        this.name = Objects.requireNonNull(name, "name");
        this.redis = Objects.requireNonNull(redis, "redis");
        this.key = Objects.requireNonNull(keyPrefix, "keyPrefix") + ":serial:" + name;
        this.checkServer = checkServer;
    }

    @Override
    public Taken take(Offsets offsets, long prefetchBelow, long claimMillis) {
        List<Object> reply;
        try {
            reply = script().eval(RScript.Mode.READ_WRITE, TAKE, RScript.ReturnType.LIST, List.of(key), arguments(offsets,
                    checkServer ? "1" : "0", Long.toString(claimMillis), Long.toString(prefetchBelow)));
        } catch (RuntimeException e) {
            throw new IdGenerationException("Daily serial '" + name + "': Redis did not answer or refused the script ("
                    + e.getMessage() + "). No number was issued.", e);
        }
        return new Taken((Long) reply.get(0), (Long) reply.get(1), NEXT[((Long) reply.get(2)).intValue()], (String) reply.get(3));
    }

    @Override
    public boolean install(Offsets offsets, long day, SegmentStore.Range range, String server) {
        Long installed = script().eval(RScript.Mode.READ_WRITE, INSTALL, RScript.ReturnType.LONG, List.of(key), arguments(offsets,
                checkServer ? "1" : "0", Long.toString(day), Long.toString(range.first()), Long.toString(range.last()), server,
                Long.toString(STATE_TTL_SECONDS)));
        return installed != null && installed == 1;
    }

    /** The zone's offsets as the scripts' first three arguments, then {@code more}. */
    private static Object[] arguments(Offsets offsets, String... more) {
        Object[] arguments = new Object[3 + more.length];
        arguments[0] = Integer.toString(offsets.before());
        arguments[1] = Long.toString(offsets.changesAt());
        arguments[2] = Integer.toString(offsets.after());
        System.arraycopy(more, 0, arguments, 3, more.length);
        return arguments;
    }

    private RScript script() {
        return redis.get().getScript(StringCodec.INSTANCE);
    }
}
