package dev.distlock.internal.cdi;

import dev.distlock.testkit.TestRedis;
import org.redisson.api.RedissonClient;

/**
 * Looks at the test Redis through a client of its own, as a second JVM would: never the client
 * distlock uses, so what it sees is what is in Redis. One for the whole test run; it is never
 * shut down (that would cost seconds of quiet period and the JVM ends anyway).
 */
final class Probe {

    private static RedissonClient client;

    private Probe() {
    }

    static synchronized RedissonClient client() {
        if (client == null) {
            client = TestRedis.newClient();
        }
        return client;
    }

    /** Whether the exclusive lock {@code redisKey} is held, by anyone. */
    static boolean isLocked(String redisKey) {
        return client().getLock(redisKey).isLocked();
    }

    static boolean isReadLocked(String redisKey) {
        return client().getReadWriteLock(redisKey).readLock().isLocked();
    }

    static boolean isWriteLocked(String redisKey) {
        return client().getReadWriteLock(redisKey).writeLock().isLocked();
    }

    /** Removes a key, as Redis losing its data would. */
    static void delete(String redisKey) {
        client().getKeys().delete(redisKey);
    }

    static boolean exists(String redisKey) {
        return client().getKeys().countExists(redisKey) > 0;
    }
}
