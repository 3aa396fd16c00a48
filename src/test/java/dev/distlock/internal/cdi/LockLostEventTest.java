package dev.distlock.internal.cdi;

import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A lock lost while its method ran: the caller gets LockLostException and observers an event. */
class LockLostEventTest {

    static final String PREFIX = TestRedis.uniquePrefix("lost-event");
    static final LinkedBlockingQueue<LockLostEvent> EVENTS = new LinkedBlockingQueue<>();

    /** A locked bean whose lock Redis can be made to lose while a method runs. */
    @ApplicationScoped
    public static class LockLoser {
        @Inject
        RedissonClient redis;

        /** Redis loses the lock while the method runs (as on a restart without data). */
        @Locked("stock:{sku}")
        public void loseLockWhileRunning(String sku) {
            redis.getKeys().delete(PREFIX + ":lock:stock:" + sku);
        }

        @Locked("stock:{sku}")
        public void keepLock(String sku) {
        }
    }

    @ApplicationScoped
    public static class Alerts {
        void onLost(@ObservesAsync LockLostEvent event) {
            EVENTS.add(event);
        }
    }

    @Test
    void lostLockIsThrownAndObserved() throws Exception {
        EVENTS.clear();
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", PREFIX),
                TestRedisClient.class, LockLoser.class, Alerts.class)) {
            LockLoser loser = weld.bean(LockLoser.class);
            loser.keepLock("A-1");
            assertNull(EVENTS.poll(300, TimeUnit.MILLISECONDS), "no event for a lock that was held to the end");

            assertThrows(LockLostException.class, () -> loser.loseLockWhileRunning("A-1"));
            LockLostEvent event = EVENTS.poll(10, TimeUnit.SECONDS);
            assertNotNull(event, "no LockLostEvent observed");
            assertEquals(PREFIX + ":lock:stock:A-1", event.key());
            assertEquals(LockMode.EXCLUSIVE, event.mode());
        }
    }
}
