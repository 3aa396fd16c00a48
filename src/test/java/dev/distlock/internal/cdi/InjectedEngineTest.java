package dev.distlock.internal.cdi;

import dev.distlock.DistributedLocks;
import dev.distlock.LockContext;
import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code @Inject DistributedLocks} in a CDI application: the annotations' own engine, with the configured prefix. */
class InjectedEngineTest {

    private static final String PREFIX = TestRedis.uniquePrefix("engine");

    /** A bean that uses the injected engine in code as well as through {@code @Locked}. */
    @ApplicationScoped
    public static class EngineUser {
        @Inject
        DistributedLocks locks;
        @Inject
        LockContext context;
        @Inject
        RedissonClient redis;

        @Locked(value = "stock:{sku}", fenced = true)
        public long fencedToken(String sku) {
            return context.fencingToken().orElseThrow();
        }

        public boolean heldInCode(String sku) {
            return locks.exclusive("stock:" + DistributedLocks.encode(sku)).get(
                    () -> redis.getLock(PREFIX + ":lock:stock:" + sku).isLocked());
        }

        public DistributedLocks locks() {
            return locks;
        }
    }

    @Test
    void theInjectedEngineIsTheAnnotationsOwn() {
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", PREFIX), TestRedisClient.class, EngineUser.class)) {
            EngineUser user = weld.bean(EngineUser.class);
            assertSame(weld.bean(LockEngine.class).locks(), user.locks());
            assertTrue(user.heldInCode("A-1"), "a lock taken in code lives under the configured prefix");

            long before = user.fencedToken("A-2");
            long floor = before + 1_000_000;
            user.locks().raiseFencingFloor("stock:A-2", floor);
            long after = user.fencedToken("A-2");
            assertTrue(after > floor, "the next token must pass the raised floor: " + after + " after " + floor);
        }
    }
}
