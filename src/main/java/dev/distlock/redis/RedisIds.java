package dev.distlock.redis;

import dev.distlock.DistributedLocks;
import dev.distlock.spi.id.IdStore;
import org.redisson.api.RedissonClient;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * Redis as the store of id generators built without CDI ({@code dev.distlock.id.Ids}): leased
 * worker ids, fixed worker ids' clock floors and the day's serials are kept through
 * {@code redisson}, which the application closes after the generators.
 *
 * <pre>{@code
 * IdStore redis = RedisIds.store(redisson);
 * try (Ids.Generator orders = Ids.snowflake("order").leasedWorker(redis).build()) { ... }
 * }</pre>
 */
public final class RedisIds {

    private RedisIds() {
    }

    /** Ids' shared state in the Redis that {@code redisson} reaches. */
    public static IdStore store(RedissonClient redisson) {
        Objects.requireNonNull(redisson, "redisson");
        return new RedisBackend(() -> redisson, DistributedLocks.DEFAULT_ANSWER_GRACE.toMillis());
    }

    /**
     * The client of a Redis store (the one distlock made from {@code distlock.redis.*}, where it made
     * it), e.g. to look at what distlock keeps there.
     *
     * @throws IllegalArgumentException when {@code store} is not Redis
     */
    public static Supplier<RedissonClient> clients(IdStore store) {
        if (store instanceof RedisBackend redis) {
            return redis::client;
        }
        throw new IllegalArgumentException("not a Redis store: " + store);
    }
}
