package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeldTest;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InterceptorBinding;
import jakarta.interceptor.InvocationContext;
import org.jboss.weld.junit5.auto.AddBeanClasses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Semantics 6: the lock interceptor runs outside {@code @Transactional}
 * ({@code PLATFORM_BEFORE + 200}), so the lock is taken before the transaction begins and released
 * after it ends. A stand-in interceptor at that priority records whether the lock is held when it
 * is entered and when it is left; its twin below distlock's priority must see the opposite,
 * which shows the test can tell the order at all.
 */
@DistlockWeldTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@AddBeanClasses({InterceptorOrderTest.Orders.class, InterceptorOrderTest.Observations.class,
        InterceptorOrderTest.FakeTransactionalInterceptor.class, InterceptorOrderTest.OutsideTheLockInterceptor.class})
class InterceptorOrderTest {

    /** Stands in for {@code jakarta.transaction.Transactional}, at its priority. */
    @InterceptorBinding
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.TYPE})
    public @interface FakeTransactional {
    }

    @InterceptorBinding
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.TYPE})
    public @interface OutsideTheLock {
    }

    @ApplicationScoped
    public static class Observations {
        private final List<String> seen = new CopyOnWriteArrayList<>();
        @Inject
        DistlockSetup distlock;

        /** Records whether the lock of order {@code id} is held, seen from a second client. */
        void record(String where, String id) {
            seen.add(where + (Probe.isLocked(distlock.settings().keyPrefix() + ":lock:order:" + id) ? " held" : " free"));
        }

        List<String> take() {
            List<String> taken = List.copyOf(seen);
            seen.clear();
            return taken;
        }
    }

    private static Object observe(InvocationContext invocation, Observations observations, String name) throws Exception {
        String id = (String) invocation.getParameters()[0];
        observations.record(name + " entry", id);
        Object result = invocation.proceed();
        observations.record(name + " exit", id);
        return result;
    }

    @FakeTransactional
    @Interceptor
    @Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
    public static class FakeTransactionalInterceptor {
        @Inject
        Observations observations;

        @AroundInvoke
        Object around(InvocationContext invocation) throws Exception {
            return observe(invocation, observations, "tx");
        }
    }

    @OutsideTheLock
    @Interceptor
    @Priority(Interceptor.Priority.PLATFORM_BEFORE + 50)
    public static class OutsideTheLockInterceptor {
        @Inject
        Observations observations;

        @AroundInvoke
        Object around(InvocationContext invocation) throws Exception {
            return observe(invocation, observations, "outer");
        }
    }

    @ApplicationScoped
    public static class Orders {
        @Inject
        Observations observations;

        @Locked("order:{id}")
        @FakeTransactional
        public void placeInTransaction(String id) {
            observations.record("method", id);
        }

        @Locked("order:{id}")
        @OutsideTheLock
        public void placeBehindOuterInterceptor(String id) {
            observations.record("method", id);
        }
    }

    @Inject
    Orders orders;
    @Inject
    Observations observations;
    @Inject
    DistlockSetup distlock;

    @Test
    void lockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItEnds() {
        orders.placeInTransaction("1");
        assertEquals(List.of("tx entry held", "method held", "tx exit held"), observations.take());
        assertFalse(Probe.isLocked(distlock.settings().keyPrefix() + ":lock:order:1"));
    }

    @Test
    void anInterceptorWithALowerPriorityRunsOutsideTheLock() {
        orders.placeBehindOuterInterceptor("2");
        assertEquals(List.of("outer entry free", "method held", "outer exit free"), observations.take());
    }
}
