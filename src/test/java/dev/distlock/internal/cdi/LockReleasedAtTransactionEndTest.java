package dev.distlock.internal.cdi;

import dev.distlock.DistributedLocks;
import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.transactions.Narayana;
import dev.distlock.testkit.TestRedis;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.InterceptorBinding;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Transactional;
import org.junit.jupiter.api.Test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A locked method that begins its own transaction ({@code @Locked} outside {@code @Transactional})
 * gives its lock up as soon as the transaction has completed (Narayana, with its own
 * {@code @Transactional}) — before the interceptors between
 * the two have unwound — so the next holder does not wait for the server's clean-up. An
 * interceptor placed between them ({@code PLATFORM_BEFORE + 150}), once the transaction is over
 * and the locked call not yet returned, lets another thread ask for the same lock (waiting 2 s at
 * most) and waits for it.
 */
class LockReleasedAtTransactionEndTest {

    @InterceptorBinding
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.TYPE})
    public @interface LookAfterwards {
    }

    /** Records, after the call inside it returned, whether another thread could take the lock meanwhile. */
    @LookAfterwards
    @jakarta.interceptor.Interceptor
    @Priority(jakarta.interceptor.Interceptor.Priority.PLATFORM_BEFORE + 150)
    public static class Look {
        static final List<Boolean> STILL_LOCKED = new CopyOnWriteArrayList<>();

        @Inject
        DistributedLocks locks;

        @AroundInvoke
        Object around(InvocationContext invocation) throws Exception {
            Object result = invocation.proceed();
            AtomicBoolean took = new AtomicBoolean();
            Thread other = new Thread(() -> {
                try {
                    locks.exclusive("job").waitTime(Duration.ofSeconds(2)).run(() -> took.set(true));
                } catch (LockTimeoutException stillHeld) {
                    // the lock stays with the call until it returns
                }
            });
            other.start();
            other.join();
            STILL_LOCKED.add(!took.get());
            return result;
        }
    }

    @ApplicationScoped
    public static class Jobs {
        @Locked("job")
        @LookAfterwards
        @Transactional
        public String inItsOwnTransaction(String redisKey) {
            assertTrue(Probe.isLocked(redisKey), "held while the method runs");
            return "done";
        }

        @Locked("job")
        @LookAfterwards
        public String withoutATransaction(String redisKey) {
            return "done";
        }
    }

    @Test
    void theLockGoesWhenItsTransactionHasCompleted() {
        try (DistlockWeld weld = start()) {
            String key = weld.bean(DistlockSetup.class).settings().keyPrefix() + ":lock:job";
            Look.STILL_LOCKED.clear();
            assertEquals("done", weld.bean(Jobs.class).inItsOwnTransaction(key));
            assertEquals(List.of(false), Look.STILL_LOCKED, "another thread took it once the transaction completed, before the call returned");
            assertFalse(Probe.isLocked(key));
        }
    }

    /** The control: without a transaction, the lock is held until the locked call itself returns. */
    @Test
    void withoutATransactionTheLockStaysUntilTheCallReturns() {
        try (DistlockWeld weld = start()) {
            String key = weld.bean(DistlockSetup.class).settings().keyPrefix() + ":lock:job";
            Look.STILL_LOCKED.clear();
            assertEquals("done", weld.bean(Jobs.class).withoutATransaction(key));
            assertEquals(List.of(true), Look.STILL_LOCKED, "still held inside the locked call");
            assertFalse(Probe.isLocked(key));
        }
    }

    private static DistlockWeld start() {
        return Narayana.start(Map.of("distlock.key-prefix", TestRedis.uniquePrefix("at-end")), Jobs.class, Look.class);
    }
}
