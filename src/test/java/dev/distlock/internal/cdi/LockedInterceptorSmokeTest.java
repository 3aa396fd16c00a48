package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LockedInterceptorSmokeTest {

    /** Says whether its lock is held while it runs, called through the container or from itself. */
    @ApplicationScoped
    public static class LockReporter {
        @Inject
        RedissonClient redis;

        @Locked("stock:{sku}")
        public boolean lockedWhileRunning(String sku) {
            return redis.getLock(prefix + ":lock:stock:" + sku).isLocked();
        }

        public boolean selfInvocation(String sku) {
            return this.lockedWhileRunning(sku);
        }
    }

    static String prefix = TestRedis.uniquePrefix("smoke");

    @Test
    void theLockIsHeldWhileTheMethodRunsAndFreeAfterwards() {
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix), TestRedisClient.class, LockReporter.class)) {
            LockReporter reporter = weld.bean(LockReporter.class);
            assertTrue(reporter.lockedWhileRunning("A-1"));
            assertFalse(weld.bean(RedissonClient.class).getLock(prefix + ":lock:stock:A-1").isLocked());
            assertEquals(prefix, weld.bean(DistlockSetup.class).settings().keyPrefix());
        }
    }

    @Test
    void aCallFromInsideTheSameBeanIsNotIntercepted() {
        // The README's caveat: `this.method()` bypasses the container, so no lock is taken.
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix), TestRedisClient.class, LockReporter.class)) {
            assertFalse(weld.bean(LockReporter.class).selfInvocation("A-2"));
        }
    }
}
