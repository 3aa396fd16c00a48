package dev.distlock.internal.cdi;

import dev.distlock.redis.RedisIds;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockBackendProvider;
import dev.distlock.spi.id.IdStore;
import org.redisson.api.RedissonClient;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Where the application's id generators keep what nodes share (worker leases, clock floors, the
 * day's serials): the lock backend when it is an {@link IdStore} (Redis), otherwise a Redis backend
 * of its own, started when an id first needs it and closed with this.
 */
final class IdStores implements AutoCloseable {

    private final LockBackend locks;
    private final LockBackendProvider.Configured redis;
    private final LockBackendProvider.Beans beans;
    /** Held while the Redis backend is started or closed; not a monitor, so virtual threads do not pin. */
    private final ReentrantLock starting = new ReentrantLock();
    private volatile LockBackend started;

    IdStores(LockBackend locks, LockBackendProvider.Configured redis, LockBackendProvider.Beans beans) {
        this.locks = locks;
        this.redis = redis;
        this.beans = beans;
    }

    IdStore store() {
        return locks instanceof IdStore store ? store : (IdStore) started();
    }

    /** The client of the Redis store, for tests and benchmarks that look at what distlock keeps there. */
    Supplier<RedissonClient> redisClient() {
        return RedisIds.clients(store());
    }

    /** Forgets what the Redis store's client keeps on this thread, if it was started. */
    void releaseThreadState() {
        LockBackend current = started;
        if (current != null) {
            current.releaseThreadState();
        }
    }

    private LockBackend started() {
        LockBackend current = started;
        if (current != null) {
            return current;
        }
        starting.lock();
        try {
            if (started == null) {
                LockBackend made = redis.start(beans);
                if (!(made instanceof IdStore)) {
                    made.close();
                    throw new IllegalStateException(redis.describe() + " keeps no ids");
                }
                started = made;
            }
            return started;
        } finally {
            starting.unlock();
        }
    }

    @Override
    public void close() {
        starting.lock();
        try {
            if (started != null) {
                started.close();
                started = null;
            }
        } finally {
            starting.unlock();
        }
    }
}
