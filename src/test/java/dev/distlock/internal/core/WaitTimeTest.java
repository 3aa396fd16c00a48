package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.testkit.backend.OtherOwner;

import dev.distlock.DistlockException;
import dev.distlock.DistributedLocks;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** waitTime bounds the wait; on timeout the call fails or is skipped, and the work never runs. */
@Timeout(30)
class WaitTimeTest {

    private static final long WAIT_MILLIS = 300;
    /** Redisson measures in whole milliseconds; allow it to wake a hair early. */
    private static final long EARLY_WAKE_MILLIS = 20;
    /** Generous: the machine is small and shared. */
    private static final long SLACK_MILLIS = 2_000;

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final DistributedLocks locks = RedisLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("wait")).build();
    private final AtomicBoolean ran = new AtomicBoolean();

    @Test
    void timeoutThrowsAfterWaitTimeWithoutRunning() throws Exception {
        try (OtherOwner holder = OtherOwner.holds(locks.exclusive("k"))) {
            long start = System.nanoTime();
            LockTimeoutException timeout = assertThrows(LockTimeoutException.class, () ->
                    locks.exclusive("k").waitTime(Duration.ofMillis(WAIT_MILLIS)).run(() -> ran.set(true)));
            long waited = millisSince(start);

            assertTrue(waited >= WAIT_MILLIS - EARLY_WAKE_MILLIS, "gave up after " + waited + " ms");
            assertTrue(waited < WAIT_MILLIS + SLACK_MILLIS, "gave up only after " + waited + " ms");
            assertFalse(ran.get(), "the work ran without the lock");
            assertEquals(EngineAccess.lockName(locks, "k", false), timeout.key());
            assertTrue(timeout.getMessage().contains("within 300 ms"), timeout.getMessage());
        }
    }

    @Test
    void skipOnTimeoutReturnsNullWithoutRunning() throws Exception {
        try (OtherOwner holder = OtherOwner.holds(locks.exclusive("k"))) {
            long start = System.nanoTime();
            String result = locks.exclusive("k").waitTime(Duration.ofMillis(WAIT_MILLIS)).skipOnTimeout()
                    .get(() -> {
                        ran.set(true);
                        return "ran";
                    });
            long waited = millisSince(start);

            assertNull(result);
            assertFalse(ran.get(), "the work ran without the lock");
            assertTrue(waited >= WAIT_MILLIS - EARLY_WAKE_MILLIS, "skipped after " + waited + " ms");
        }
    }

    @Test
    void waitTimeZeroTriesOnce() throws Exception {
        try (OtherOwner holder = OtherOwner.holds(locks.exclusive("k"))) {
            long start = System.nanoTime();
            assertThrows(LockTimeoutException.class, () ->
                    locks.exclusive("k").waitTime(Duration.ZERO).run(() -> ran.set(true)));
            long waited = millisSince(start);

            assertFalse(ran.get());
            assertTrue(waited < SLACK_MILLIS / 2, "a single try took " + waited + " ms");
        }
        assertEquals("got it", locks.exclusive("k").waitTime(Duration.ZERO).get(() -> "got it"),
                "a single try succeeds on a free lock");
    }

    @Test
    void anInterruptedWaitGivesUpAndLeavesNoLockBehind() throws Exception {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter;
        try (OtherOwner holder = OtherOwner.holds(locks.exclusive("k"))) {
            waiter = new Thread(() -> {
                try {
                    locks.exclusive("k").waitTime(Duration.ofSeconds(10)).run(() -> ran.set(true));
                    outcome.complete(null);
                } catch (Throwable e) {
                    outcome.complete(Thread.currentThread().isInterrupted() ? e : new AssertionError("interrupt flag lost", e));
                }
            }, "interrupted-waiter");
            waiter.start();
            Thread.sleep(200);
            waiter.interrupt();

            Throwable failure = outcome.get(5, TimeUnit.SECONDS);
            assertInstanceOf(DistlockException.class, failure);
            assertTrue(failure.getMessage().contains("Interrupted"), failure.getMessage());
        }
        // The abandoned Redis-side wait may still win the lock once the holder is gone; it must give it back.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        boolean free = false;
        while (!free && System.nanoTime() < deadline) {
            free = OtherOwner.gets(locks.exclusive("k"));
            Thread.sleep(50);
        }
        assertTrue(free, "the lock was left behind by the interrupted wait");
        assertFalse(ran.get());
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
