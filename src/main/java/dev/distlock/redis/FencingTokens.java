package dev.distlock.redis;

import org.redisson.RedissonObject;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.LongCodec;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Fencing tokens of exclusive locks. Redisson's fenced lock takes the lock and increments a
 * counter in one script, so a token is only ever issued to the caller that holds the lock. What
 * Redisson does not do is survive the loss of that counter (Redis restarted without its data, a
 * failover to a replica that never saw it): counting would start again at 1, below tokens stores
 * have already accepted, and every new holder would be refused.
 *
 * <p>So distlock seeds each counter from Redis's own clock, in microseconds since the epoch
 * (about 1.8 × 10<sup>15</sup> today), and counts on from there. A token below {@link #SEEDED}
 * shows a counter that was just created, by Redisson's increment from nothing: the holder then
 * raises the counter to Redis's current time and takes its token from it — in one script that
 * first checks the holder still has the lock. After a restart without data, tokens therefore
 * carry on above every earlier one, as long as Redis's clock has moved on by more microseconds
 * than there were acquisitions of the key since it was seeded. Where that cannot be trusted (a
 * clock set back), {@link #raiseFloor} sets the counter above the largest token a store holds.
 */
public final class FencingTokens {

    /** Tokens from a seeded counter are at least this (10<sup>15</sup> µs is September 2001). */
    public static final long SEEDED = 1_000_000_000_000_000L;

    /** Checks ownership, raises the counter to Redis time in µs if it is below, takes the next token. */
    private static final String SEED = """
            if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
                return -1
            end
            local time = redis.call('time')
            local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
            local current = tonumber(redis.call('get', KEYS[2]) or '0')
            if current < now then
                redis.call('set', KEYS[2], string.format('%.0f', now))
            end
            return redis.call('incr', KEYS[2])
            """;

    private static final String RAISE = """
            local current = tonumber(redis.call('get', KEYS[1]) or '0')
            if current < tonumber(ARGV[1]) then
                redis.call('set', KEYS[1], ARGV[1])
            end
            return tonumber(redis.call('get', KEYS[1]))
            """;

    private FencingTokens() {
    }

    /** The counter Redisson's fenced lock {@code lockName} increments (same hash slot as the lock). */
    static String counterName(String lockName) {
        return RedissonObject.prefixName("redisson_lock_token", lockName);
    }

    /**
     * For a holder whose token came from an unseeded counter: seeds it and returns the holder's
     * new token, or {@code -1} if the holder no longer has the lock.
     */
    static CompletableFuture<Long> seed(RedissonClient client, String lockName, long redisId) {
        RScript script = client.getScript(LongCodec.INSTANCE);
        String field = client.getId() + ":" + redisId;
        return script.<Long>evalAsync(lockName, RScript.Mode.READ_WRITE, SEED, RScript.ReturnType.LONG,
                List.of(lockName, counterName(lockName)), field).toCompletableFuture();
    }

    /**
     * Makes every later token of {@code lockName} larger than {@code floor}.
     *
     * @return the counter afterwards
     */
    static long raiseFloor(RedissonClient client, String lockName, long floor) {
        if (floor < 0) {
            throw new IllegalArgumentException("floor must be >= 0, was " + floor);
        }
        String counter = counterName(lockName);
        return client.getScript(LongCodec.INSTANCE).<Long>eval(counter, RScript.Mode.READ_WRITE, RAISE,
                RScript.ReturnType.LONG, List.of(counter), Long.toString(floor));
    }
}
