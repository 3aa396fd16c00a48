package dev.distlock.internal.cdi;

import dev.distlock.LockKey;
import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeldTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.auto.AddBeanClasses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Semantics 1: how a call's arguments become the Redis key, and what a key without a value does. */
@DistlockWeldTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@AddBeanClasses(LockKeysThroughBeansTest.Shop.class)
class LockKeysThroughBeansTest {

    public record Customer(String id) {
    }

    public record Order(String number, Customer customer) {
    }

    @ApplicationScoped
    public static class Shop {
        private final AtomicInteger runs = new AtomicInteger();

        @Locked("stock:{sku}")
        public <T> T reserve(String sku, Callable<T> body) throws Exception {
            runs.incrementAndGet();
            return body.call();
        }

        @Locked("stock")
        public <T> T reserveByKey(@LockKey String sku, int quantity, Callable<T> body) throws Exception {
            runs.incrementAndGet();
            return body.call();
        }

        @Locked("customer:{order.customer.id}")
        public <T> T ship(Order order, Callable<T> body) throws Exception {
            runs.incrementAndGet();
            return body.call();
        }

        int runs() {
            return runs.get();
        }
    }

    @Inject
    Shop shop;
    @Inject
    DistlockSetup distlock;

    @Test
    void namedParameterFillsThePlaceholder() throws Exception {
        assertTrue(shop.reserve("A-1", () -> Probe.isLocked(lockKey("stock:A-1"))));
    }

    @Test
    void lockKeyParameterIsAppendedToTheTemplate() throws Exception {
        assertTrue(shop.reserveByKey("B-2", 3, () -> Probe.isLocked(lockKey("stock:B-2"))));
        assertFalse(Probe.isLocked(lockKey("stock:B-2")));
    }

    @Test
    void propertyPathReadsRecordComponents() throws Exception {
        Order order = new Order("o-1", new Customer("c-9"));
        assertTrue(shop.ship(order, () -> Probe.isLocked(lockKey("customer:c-9"))));
    }

    @Test
    void valuesAreEncodedSoTheyCannotReachIntoAnotherKey() throws Exception {
        assertTrue(shop.reserve("x:{y}%", () -> Probe.isLocked(lockKey("stock:x%3A%7By%7D%25"))));
    }

    @Test
    void nullKeyParameterIsRejectedAndTheMethodDoesNotRun() {
        int before = shop.runs();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> shop.reserve(null, () -> true));
        assertTrue(e.getMessage().contains("'sku'") && e.getMessage().contains("null"), e.getMessage());
        assertEquals(before, shop.runs());
        assertFalse(Probe.exists(lockKey("stock:null")));
    }

    @Test
    void blankKeyParameterIsRejectedAndTheMethodDoesNotRun() {
        int before = shop.runs();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> shop.reserve("  ", () -> true));
        assertTrue(e.getMessage().contains("'sku'") && e.getMessage().contains("blank"), e.getMessage());
        assertEquals(before, shop.runs());
        assertFalse(Probe.exists(lockKey("stock:  ")));
    }

    @Test
    void nullLockKeyParameterIsRejectedAndTheMethodDoesNotRun() {
        int before = shop.runs();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> shop.reserveByKey(null, 1, () -> true));
        assertTrue(e.getMessage().contains("'sku'"), e.getMessage());
        assertEquals(before, shop.runs());
        assertFalse(Probe.exists(lockKey("stock:null")));
    }

    @Test
    void nullAlongThePropertyPathIsRejectedAndTheMethodDoesNotRun() {
        int before = shop.runs();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> shop.ship(new Order("o-2", null), () -> true));
        assertTrue(e.getMessage().contains("order.customer.id"), e.getMessage());
        assertEquals(before, shop.runs());
        assertFalse(Probe.exists(lockKey("customer:null")));
    }

    private String lockKey(String key) {
        return distlock.settings().keyPrefix() + ":lock:" + key;
    }
}
