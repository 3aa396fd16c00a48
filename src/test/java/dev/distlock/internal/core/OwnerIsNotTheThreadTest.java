package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.DistributedLocks;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine locks on behalf of an invocation, under a synthetic owner id, never the thread's:
 * Redisson does not see the calling thread as the holder.
 */
@Timeout(30)
class OwnerIsNotTheThreadTest {

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final DistributedLocks locks = RedisLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("owner")).build();

    @Test
    void theCallingThreadDoesNotHoldTheLock() {
        RLock lock = redis.getLock(EngineAccess.lockName(locks, "k", false));
        boolean[] seen = new boolean[3];

        locks.exclusive("k").run(() -> {
            seen[0] = lock.isLocked();
            seen[1] = lock.isHeldByCurrentThread();
            // A plain thread-owned attempt from the same thread is a different owner, so it fails.
            seen[2] = lock.tryLock();
        });

        assertTrue(seen[0], "locked while the work ran");
        assertFalse(seen[1], "Redisson sees the calling thread as the holder");
        assertFalse(seen[2], "the calling thread could take the engine's lock as its own");
        assertFalse(lock.isLocked(), "released after the work");
    }
}
