package dev.distlock.redis;

import dev.distlock.LockDefinitionException;
import dev.distlock.spi.Durations;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockBackendProvider;
import org.redisson.api.RedissonClient;


/**
 * Redis as {@code distlock.backend=redis}, the default: the application's own {@link RedissonClient}
 * bean if it has one, otherwise a client of distlock's own built from {@code distlock.redis.*} (or
 * the Redisson YAML {@code distlock.redis.config}) when the first lock needs it, so that the
 * application deploys while Redis is down. Every value is checked at deployment.
 */
public final class RedisBackendProvider implements LockBackendProvider {

    /** The value of {@code distlock.backend} that names Redis. */
    public static final String NAME = "redis";
    static final String FENCING_COUNTER_EXPIRY = RedisSettings.PREFIX + "fencing-counter-expiry";
    static final long MIN_FENCING_COUNTER_EXPIRY_MILLIS = 3_600_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Configured configure(Settings settings) {
        RedisSettings.redissonConfig(settings); // every value checked now; a fresh one is built per client
        long counterExpiry = settings.raw(FENCING_COUNTER_EXPIRY).map(RedisBackendProvider::fencingCounterExpiry)
                .orElse(RedisBackend.DEFAULT_FENCING_COUNTER_EXPIRY.toMillis());
        String where = RedisSettings.describe(settings);
        long graceMillis = settings.answerGrace().toMillis();
        return new Configured() {
            @Override
            public String describe() {
                return "Redis (" + where + ")";
            }

            @Override
            public LockBackend start(Beans beans) {
                RedisConnection connection = new RedisConnection(() -> beans.bean(RedissonClient.class),
                        () -> RedisSettings.redissonConfig(settings), where);
                return new RedisBackend(connection, graceMillis, counterExpiry);
            }
        };
    }

    /**
     * 0 (kept for ever) or at least an hour: a counter made again is seeded from the Redis host's
     * clock, so an expiry shorter than a step back of that clock would let tokens go back.
     */
    private static long fencingCounterExpiry(String value) {
        String rule = "must be 0 (kept for ever) or at least PT1H (" + MIN_FENCING_COUNTER_EXPIRY_MILLIS + " ms): a counter made"
                + " again is seeded from the Redis host's clock, and a shorter expiry lets a fenced lock's tokens go back when"
                + " that clock steps back by more than it";
        long millis;
        try {
            millis = Durations.parseMillis(value);
        } catch (IllegalArgumentException e) {
            throw new LockDefinitionException("Config " + FENCING_COUNTER_EXPIRY + "=" + value + ": " + e.getMessage());
        }
        if (millis < 0 || (millis != 0 && millis < MIN_FENCING_COUNTER_EXPIRY_MILLIS)) {
            throw new LockDefinitionException("Config " + FENCING_COUNTER_EXPIRY + "=" + value + ": " + rule);
        }
        return millis;
    }
}
