package dev.distlock.redis;

import dev.distlock.DistributedLocks;
import dev.distlock.LockServiceUnavailableException;
import org.redisson.api.RedissonClient;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * {@link DistributedLocks} in Redis, through Redisson, without CDI:
 *
 * <pre>{@code
 * DistributedLocks locks = RedisLocks.create(redisson);
 * DistributedLocks orders = RedisLocks.builder(redisson).keyPrefix("orders").build();
 * }</pre>
 *
 * The application closes the client, after these locks.
 */
public final class RedisLocks {

    private RedisLocks() {
    }

    /** Locks in Redis with the default prefix. */
    public static DistributedLocks create(RedissonClient redisson) {
        return builder(redisson).build();
    }

    /** Locks in Redis, through {@code redisson}; the application closes the client, after these locks. */
    public static DistributedLocks.Builder builder(RedissonClient redisson) {
        Objects.requireNonNull(redisson, "redisson");
        return DistributedLocks.builder(grace -> new RedisBackend(() -> redisson, grace.toMillis()));
    }

    /**
     * For a client that may not exist yet: {@code source} is asked on every acquisition and may
     * throw {@link LockServiceUnavailableException} while Redis is unreachable.
     */
    public static DistributedLocks.Builder builder(Supplier<RedissonClient> source) {
        Objects.requireNonNull(source, "source");
        return DistributedLocks.builder(grace -> new RedisBackend(source::get, grace.toMillis()));
    }
}
