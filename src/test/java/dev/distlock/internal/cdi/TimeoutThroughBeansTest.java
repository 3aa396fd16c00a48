package dev.distlock.internal.cdi;

import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import dev.distlock.OnTimeout;
import dev.distlock.testing.DistlockWeldTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.auto.AddBeanClasses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RLock;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semantics 2: when another holder keeps the lock past {@code waitTime}, the method does not run;
 * it fails with {@link LockTimeoutException} or, with {@code onTimeout = SKIP}, returns nothing.
 * The other holder is a second Redis client, as another JVM would be.
 */
@DistlockWeldTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@AddBeanClasses(TimeoutThroughBeansTest.Reports.class)
class TimeoutThroughBeansTest {

    private static final long WAIT_MILLIS = 300;
    /** Two shared cores: Redis may answer late, but never seconds late. */
    private static final long SLACK_MILLIS = 4_000;

    @ApplicationScoped
    public static class Reports {
        private final AtomicInteger runs = new AtomicInteger();

        @Locked(value = "report:{id}", waitTime = WAIT_MILLIS)
        public String failing(String id) {
            runs.incrementAndGet();
            return "ran";
        }

        @Locked(value = "report:{id}", waitTime = WAIT_MILLIS, onTimeout = OnTimeout.SKIP)
        public String skipping(String id) {
            runs.incrementAndGet();
            return "ran";
        }

        @Locked(value = "report:{id}", waitTime = WAIT_MILLIS, onTimeout = OnTimeout.SKIP)
        public Optional<String> skippingOptional(String id) {
            runs.incrementAndGet();
            return Optional.of("ran");
        }

        @Locked(value = "report:{id}", waitTime = WAIT_MILLIS, onTimeout = OnTimeout.SKIP)
        public void skippingVoid(String id) {
            runs.incrementAndGet();
        }

        int runs() {
            return runs.get();
        }
    }

    @Inject
    Reports reports;
    @Inject
    DistlockSetup distlock;

    @Test
    void failOnTimeoutThrowsWithinWaitTimeAndDoesNotRunTheMethod() {
        String key = lockKey("report:fail");
        heldElsewhere(key, () -> {
            long start = System.nanoTime();
            LockTimeoutException e = assertThrows(LockTimeoutException.class, () -> reports.failing("fail"));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis >= WAIT_MILLIS - 50, "waited the waitTime first: " + millis + " ms");
            assertTrue(millis < WAIT_MILLIS + SLACK_MILLIS, "gave up after the waitTime: " + millis + " ms");
            assertEquals(key, e.key());
            assertTrue(e.getMessage().contains("@Locked.waitTime on Reports.failing(String)"), e.getMessage());
        });
    }

    @Test
    void skipOnTimeoutReturnsNullForAReference() {
        heldElsewhere(lockKey("report:skip"), () -> assertNull(reports.skipping("skip")));
    }

    @Test
    void skipOnTimeoutReturnsEmptyForOptional() {
        heldElsewhere(lockKey("report:optional"), () -> assertEquals(Optional.empty(), reports.skippingOptional("optional")));
    }

    @Test
    void skipOnTimeoutReturnsNothingForVoid() {
        heldElsewhere(lockKey("report:void"), () -> reports.skippingVoid("void"));
    }

    @Test
    void withTheLockFreeTheSameMethodsRun() {
        int before = reports.runs();
        assertEquals("ran", reports.failing("free"));
        assertEquals("ran", reports.skipping("free"));
        assertEquals(Optional.of("ran"), reports.skippingOptional("free"));
        reports.skippingVoid("free");
        assertEquals(before + 4, reports.runs());
    }

    /** Runs {@code check} while a second client holds {@code key}, and asserts the locked method did not run. */
    private void heldElsewhere(String key, Runnable check) {
        RLock other = Probe.client().getLock(key);
        other.lock();
        try {
            int before = reports.runs();
            check.run();
            assertEquals(before, reports.runs(), "the method must not run without the lock");
        } finally {
            other.unlock();
        }
    }

    private String lockKey(String key) {
        return distlock.settings().keyPrefix() + ":lock:" + key;
    }
}
