package dev.distlock.redis;

import dev.distlock.id.DailySerial;
import dev.distlock.id.Ids;
import dev.distlock.id.IdGenerationException;
import dev.distlock.spi.id.SegmentStore;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Date + the day's serial, counted in one Redis hash and made durable by ranges leased from a
 * {@link SegmentStore} row per generator and day ({@code invoice@2026-11-24}).
 *
 * <p>Redis hands out numbers only from a range the database leased to it for that day, so every
 * number ever issued is at or below the row's high-water mark. The hash also records which Redis
 * server it was written on (the process's run id and its replication id): a hash found on another
 * server (a replica promoted by a failover, which may not have seen the last numbers), a restarted
 * one (a snapshot older than the last numbers) or no hash at all is never counted on; the next
 * number then comes from a fresh range above the high-water mark. A range is installed at most
 * once and only on the server that asked for it, so a command retried on another server cannot
 * install it twice. Numbers can be skipped, never repeated.
 *
 * <p>The day is Redis's: the script reads Redis's clock, so every node turns to the next day at the
 * same instant whatever its own clock says. The node passes its zone's offsets around now (and the
 * next transition), so daylight-saving changes are honoured.
 *
 * <p>When few numbers are left, one node (a claim in the hash picks it) leases the next range in
 * the background; a node that finds the range used up waits for the claimant or refills itself.
 * All database access runs on this generator's own thread, never in the caller's transaction.
 */
public final class DailySerialGenerator implements Ids.Serials {

    /** Longest generator name: the store's row name adds '@' and the ISO date. */
    public static final int MAX_NAME_LENGTH = 89;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_NAME_LENGTH + "}");
    private static final long CLAIM_MILLIS = 3_000;
    private static final long STATE_TTL_SECONDS = Duration.ofDays(3).toSeconds();
    private static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final int TAKEN = 0;
    private static final int TAKEN_PREFETCH = 1;
    private static final int REFILL = 2;
    private static final int WAIT = 3;

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

    /**
     * @param zone    whose midnight starts a new day
     * @param format  how a number is written
     * @param step    how many numbers one database lease takes
     * @param timeout how long {@code next()} waits for Redis, a refill or the database
     */
    public record Settings(ZoneId zone, SerialFormat format, long step, Duration timeout) {
        public Settings {
            Objects.requireNonNull(zone, "zone");
            Objects.requireNonNull(format, "format");
            if (step < 1 || step > 1_000_000) {
                throw new IllegalArgumentException("step must be between 1 and 1000000, was " + step);
            }
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, was " + timeout);
            }
        }

        public static Settings defaults() {
            return new Settings(java.time.ZoneOffset.UTC, SerialFormat.parse(SerialFormat.DEFAULT), 100, Duration.ofSeconds(10));
        }
    }

    private final String name;
    private final Supplier<RedissonClient> redis;
    private final String key;
    private final SegmentStore store;
    private final Settings settings;
    /** Off only in the test that shows what the server check prevents. */
    private final boolean checkServer;
    private final Clock clock;
    private final ExecutorService io;

    public DailySerialGenerator(String name, Supplier<RedissonClient> redis, String keyPrefix, SegmentStore store, Settings settings) {
        this(name, redis, keyPrefix, store, settings, Clock.systemUTC(), true);
    }

    /**
     * @param clock this node's clock: only to pick the zone's offsets around now, never the day,
     *              which comes from Redis's clock
     */
    public DailySerialGenerator(String name, Supplier<RedissonClient> redis, String keyPrefix, SegmentStore store, Settings settings,
                                Clock clock) {
        this(name, redis, keyPrefix, store, settings, clock, true);
    }

    DailySerialGenerator(String name, Supplier<RedissonClient> redis, String keyPrefix, SegmentStore store, Settings settings,
                         boolean checkServer) {
        this(name, redis, keyPrefix, store, settings, Clock.systemUTC(), checkServer);
    }

    private DailySerialGenerator(String name, Supplier<RedissonClient> redis, String keyPrefix, SegmentStore store, Settings settings,
                                 Clock clock, boolean checkServer) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a daily serial generator's name has 1 to " + MAX_NAME_LENGTH
                    + " letters, digits, '.', '_' or '-', was '" + name + "'");
        }
        this.name = name;
        this.redis = Objects.requireNonNull(redis, "redis");
        this.key = Objects.requireNonNull(keyPrefix, "keyPrefix") + ":serial:" + name;
        this.store = Objects.requireNonNull(store, "store");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.checkServer = checkServer;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.io = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-serial-" + name);
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public DailySerial next() {
        long deadline = System.nanoTime() + settings.timeout().toNanos();
        while (true) {
            List<Object> reply = take();
            long day = (Long) reply.get(0);
            long serial = (Long) reply.get(1);
            int action = ((Long) reply.get(2)).intValue();
            String server = (String) reply.get(3);
            if (serial > 0) {
                if (action == TAKEN_PREFETCH) {
                    refillInBackground(day, server);
                }
                LocalDate date = LocalDate.ofEpochDay(day);
                return new DailySerial(date, serial, settings.format().format(date, serial));
            }
            if (action == REFILL) {
                awaitRefill(day, server, deadline);
            } else if (System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(WAIT_NANOS);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IdGenerationException("Daily serial '" + name + "': no range for " + LocalDate.ofEpochDay(day) + " within "
                        + settings.timeout().toMillis() + " ms (another node claimed the refill and has not installed it). No number was issued.");
            }
        }
    }

    private List<Object> take() {
        try {
            return script().eval(RScript.Mode.READ_WRITE, TAKE, RScript.ReturnType.LIST, List.of(key), offsets(
                    checkServer ? "1" : "0", Long.toString(CLAIM_MILLIS), Long.toString(Math.max(1, settings.step() / 5))));
        } catch (RuntimeException e) {
            throw new IdGenerationException("Daily serial '" + name + "': Redis did not answer or refused the script ("
                    + e.getMessage() + "). No number was issued.", e);
        }
    }

    private void awaitRefill(long day, String server, long deadline) {
        Future<Boolean> refill;
        try {
            refill = io.submit(() -> refill(day, server));
        } catch (RejectedExecutionException closed) {
            throw new IdGenerationException("Daily serial '" + name + "' is closed (the application is shutting down)", closed);
        }
        try {
            refill.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IdGenerationException("Daily serial '" + name + "' needs a new range for " + LocalDate.ofEpochDay(day)
                    + " and cannot lease one: " + e.getCause() + ". No number was issued.", e.getCause());
        } catch (TimeoutException e) {
            throw new IdGenerationException("Daily serial '" + name + "': leasing a range for " + LocalDate.ofEpochDay(day)
                    + " took longer than " + settings.timeout().toMillis() + " ms. No number was issued.", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdGenerationException("Daily serial '" + name + "': interrupted while waiting for a range", e);
        }
    }

    private void refillInBackground(long day, String server) {
        try {
            io.execute(() -> {
                try {
                    refill(day, server);
                } catch (Exception | Error e) {
                    // The claim runs out and whoever finds the range used up refills; nothing was issued from it.
                }
            });
        } catch (RejectedExecutionException closed) {
            // shutting down: the claim runs out
        }
    }

    /** Leases the day's next range from the store and installs it in Redis; false if Redis refused it (a gap). */
    private boolean refill(long day, String server) throws Exception {
        SegmentStore.Range range = store.lease(name + "@" + LocalDate.ofEpochDay(day), settings.step());
        Long installed = script().eval(RScript.Mode.READ_WRITE, INSTALL, RScript.ReturnType.LONG, List.of(key), offsets(
                checkServer ? "1" : "0", Long.toString(day), Long.toString(range.first()), Long.toString(range.last()), server,
                Long.toString(STATE_TTL_SECONDS)));
        return installed != null && installed == 1;
    }

    /** The zone's offset an hour ago, its next transition after that and the offset after it, then {@code more}. */
    private Object[] offsets(String... more) {
        ZoneRules rules = settings.zone().getRules();
        Instant from = clock.instant().minus(Duration.ofHours(1));
        ZoneOffsetTransition transition = rules.nextTransition(from);
        int before = rules.getOffset(from).getTotalSeconds();
        Object[] arguments = new Object[3 + more.length];
        arguments[0] = Integer.toString(before);
        arguments[1] = transition == null ? Long.toString(Long.MAX_VALUE) : Long.toString(transition.getInstant().getEpochSecond());
        arguments[2] = transition == null ? Integer.toString(before) : Integer.toString(transition.getOffsetAfter().getTotalSeconds());
        System.arraycopy(more, 0, arguments, 3, more.length);
        return arguments;
    }

    private RScript script() {
        return redis.get().getScript(StringCodec.INSTANCE);
    }

    @Override
    public String name() {
        return name;
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public void close() {
        io.shutdownNow();
    }
}
