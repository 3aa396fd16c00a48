package dev.distlock.internal.cdi;

import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A LockListener bean hears which locked method took, released or timed out on a lock (the
 * {@code method} attribute of the OpenTelemetry metrics): the method, never the key's values.
 */
class ListenerSiteTest {

    static final List<String> HEARD = new CopyOnWriteArrayList<>();

    @ApplicationScoped
    public static class Shop {
        @Locked("sku:{sku}")
        public void order(String sku, int quantity) {
        }

        @Locked(value = "sku:{sku}", waitTime = 100)
        public void hurry(String sku) {
        }

        @Locked("sku:{sku}")
        public void hold(String sku, CountDownLatch inside, CountDownLatch leave) throws InterruptedException {
            inside.countDown();
            leave.await(10, TimeUnit.SECONDS);
        }

        @ReadLocked("catalog")
        public void browse() {
        }
    }

    @ApplicationScoped
    public static class Recorder implements LockListener {
        @Override
        public void acquired(String key, String site, LockMode mode, long waitNanos) {
            HEARD.add("acquired " + site + " " + mode);
        }

        @Override
        public void released(String key, String site, LockMode mode, long heldNanos) {
            HEARD.add("released " + site + " " + mode);
        }

        @Override
        public void timedOut(String key, String site, LockMode mode, long waitNanos) {
            HEARD.add("timedOut " + site + " " + mode);
        }
    }

    @Test
    void listenersHearTheLockedMethod() throws Exception {
        HEARD.clear();
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", TestRedis.uniquePrefix("site")),
                TestRedisClient.class, Shop.class, Recorder.class)) {
            Shop shop = weld.bean(Shop.class);
            shop.order("MUG-1", 2);
            shop.browse();
            assertEquals(List.of(
                    "acquired Shop.order(String,int) EXCLUSIVE", "released Shop.order(String,int) EXCLUSIVE",
                    "acquired Shop.browse() READ", "released Shop.browse() READ"), HEARD);

            HEARD.clear();
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch leave = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                try {
                    shop.hold("MUG-1", inside, leave);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            holder.start();
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            assertThrows(LockTimeoutException.class, () -> shop.hurry("MUG-1"));
            leave.countDown();
            holder.join(10_000);
            assertTrue(HEARD.contains("timedOut Shop.hurry(String) EXCLUSIVE"), HEARD.toString());
            assertTrue(HEARD.contains("released Shop.hold(String,CountDownLatch,CountDownLatch) EXCLUSIVE"), HEARD.toString());
        }
    }
}
