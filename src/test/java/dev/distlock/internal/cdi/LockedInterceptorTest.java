package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.testing.DistlockWeldTest;
import dev.distlock.testing.Stock;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.auto.AddBeanClasses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code @Locked} does around a business method, seen from a second Redis client. */
@DistlockWeldTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@AddBeanClasses({Stock.class, LockedInterceptorTest.Outer.class,
        LockedInterceptorTest.Inner.class, LockedInterceptorTest.ClassLocked.class,
        LockedInterceptorTest.NorthWarehouse.class, LockedInterceptorTest.SouthWarehouse.class})
class LockedInterceptorTest {

    @ApplicationScoped
    public static class Outer {
        @Inject
        Inner inner;

        @Locked("nested:{sku}")
        public <T> T reserve(String sku, Callable<T> body) throws Exception {
            return inner.reserve(sku, body);
        }
    }

    @ApplicationScoped
    public static class Inner {
        /** waitTime 0: it must not wait for anybody, least of all its own caller. */
        @Locked(value = "nested:{sku}", waitTime = 0)
        public <T> T reserve(String sku, Callable<T> body) throws Exception {
            return body.call();
        }
    }

    @ApplicationScoped
    @Locked("class-wide")
    public static class ClassLocked {
        public <T> T plain(Callable<T> body) throws Exception {
            return body.call();
        }

        @ReadLocked("own-read")
        public <T> T reading(Callable<T> body) throws Exception {
            return body.call();
        }
    }

    /** Not a bean: its method is inherited by two beans with different class-level locks. */
    public static class Warehouse {
        public <T> T count(Callable<T> body) throws Exception {
            return body.call();
        }
    }

    @ApplicationScoped
    @Locked("north")
    public static class NorthWarehouse extends Warehouse {
    }

    @ApplicationScoped
    @Locked("south")
    public static class SouthWarehouse extends Warehouse {
    }

    @Inject
    Stock stock;
    @Inject
    NorthWarehouse north;
    @Inject
    SouthWarehouse south;
    @Inject
    Outer outer;
    @Inject
    ClassLocked classLocked;
    @Inject
    DistlockSetup distlock;

    @Test
    void lockIsHeldWhileTheMethodRunsAndFreeAfterwards() throws Exception {
        String key = lockKey("stock:held");
        assertTrue(stock.reserve("held", () -> Probe.isLocked(key)), "held while the method runs");
        assertFalse(Probe.isLocked(key), "free after it returned");
    }

    @Test
    void businessExceptionPropagatesUnchangedAndTheLockIsFreed() {
        IllegalStateException business = new IllegalStateException("out of stock");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> stock.reserve("failing", () -> {
            throw business;
        }));
        assertSame(business, thrown);
        assertFalse(Probe.isLocked(lockKey("stock:failing")));
    }

    @Test
    void checkedBusinessExceptionPropagatesUnchanged() {
        Exception business = new Exception("checked");
        Exception thrown = assertThrows(Exception.class, () -> stock.reserve("checked", () -> {
            throw business;
        }));
        assertSame(business, thrown);
        assertFalse(Probe.isLocked(lockKey("stock:checked")));
    }

    @Test
    void nestedCallOnTheSameKeyReenters() throws Exception {
        String key = lockKey("nested:A-7");
        assertTrue(outer.reserve("A-7", () -> Probe.isLocked(key)));
        assertFalse(Probe.isLocked(key), "the outer call released what it took, once");
    }

    @Test
    void classLevelLockAppliesToItsMethods() throws Exception {
        // Without a template the key is named after class and method; the class-level key here is explicit.
        assertTrue(classLocked.plain(() -> Probe.isLocked(lockKey("class-wide"))));
        assertFalse(Probe.isLocked(lockKey("class-wide")));
    }

    @Test
    void methodLevelReadLockGovernsInsteadOfTheClassLevelLock() throws Exception {
        String classKey = lockKey("class-wide");
        String readKey = rwKey("own-read");
        boolean[] seen = classLocked.reading(() -> new boolean[] {Probe.isLocked(classKey), Probe.isReadLocked(readKey)});
        assertFalse(seen[0], "the class-level @Locked is not taken");
        assertTrue(seen[1], "the method's own @ReadLocked is");
        assertFalse(Probe.exists(readKey));
    }

    @Test
    void inheritedMethodTakesTheLockOfTheBeanItIsCalledOn() throws Exception {
        assertTrue(north.count(() -> Probe.isLocked(lockKey("north")) && !Probe.isLocked(lockKey("south"))));
        assertTrue(south.count(() -> Probe.isLocked(lockKey("south")) && !Probe.isLocked(lockKey("north"))));
    }

    private String lockKey(String key) {
        return distlock.settings().keyPrefix() + ":lock:" + key;
    }

    private String rwKey(String key) {
        return distlock.settings().keyPrefix() + ":rw:" + key;
    }
}
