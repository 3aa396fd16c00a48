package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.testkit.backend.OtherOwner;

import dev.distlock.DistributedLocks;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Several keys are taken in sorted order, so opposite orders cannot deadlock, and all or none are held. */
@Timeout(60)
class MultipleKeysTest {

    private static final Duration WAIT = Duration.ofMillis(1_000);

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final DistributedLocks locks = RedisLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("keys")).build();

    @Test
    void keysAreTakenInSortedOrder() throws Exception {
        AtomicBoolean bWasFreeWhileWaitingForA = new AtomicBoolean();
        try (OtherOwner holderOfA = OtherOwner.holds(locks.exclusive("a"))) {
            CompletableFuture<Void> call = CompletableFuture.runAsync(
                    () -> locks.exclusive("b", "a").waitTime(WAIT).run(() -> { }), OwnThread.EACH);
            Thread.sleep(WAIT.toMillis() / 3);
            // Asked for "b" first, but it waits on "a" without having touched "b".
            bWasFreeWhileWaitingForA.set(OtherOwner.gets(locks.exclusive("b")));

            Throwable failure = assertThrows(Exception.class, () -> call.get(10, TimeUnit.SECONDS)).getCause();
            assertTrue(failure instanceof LockTimeoutException, String.valueOf(failure));
            assertEquals(EngineAccess.lockName(locks, "a", false), ((LockTimeoutException) failure).key());
        }
        assertTrue(bWasFreeWhileWaitingForA.get());
    }

    @Test
    void timeoutOnTheSecondKeyReleasesTheFirst() throws Exception {
        AtomicBoolean aWasFreeWhileWaitingForB = new AtomicBoolean(true);
        AtomicBoolean ran = new AtomicBoolean();
        try (OtherOwner holderOfB = OtherOwner.holds(locks.exclusive("b"))) {
            CompletableFuture<Void> call = CompletableFuture.runAsync(
                    () -> locks.exclusive("b", "a").waitTime(WAIT).run(() -> ran.set(true)), OwnThread.EACH);
            Thread.sleep(WAIT.toMillis() / 3);
            aWasFreeWhileWaitingForB.set(OtherOwner.gets(locks.exclusive("a")));

            Throwable failure = assertThrows(Exception.class, () -> call.get(10, TimeUnit.SECONDS)).getCause();
            assertTrue(failure instanceof LockTimeoutException, String.valueOf(failure));
            assertEquals(EngineAccess.lockName(locks, "b", false), ((LockTimeoutException) failure).key());
        }
        assertFalse(aWasFreeWhileWaitingForB.get(), "\"a\" was held while waiting for \"b\"");
        assertFalse(ran.get());
        assertTrue(OtherOwner.gets(locks.exclusive("a")), "\"a\" was given back after the timeout");
    }

    @Test
    void oppositeOrdersNeverDeadlock() throws Exception {
        int iterations = 40;
        AtomicInteger completed = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        Runnable ab = () -> repeat(iterations, start, () -> locks.exclusive("a", "b").waitTime(Duration.ofSeconds(10))
                .run(() -> completed.incrementAndGet()));
        Runnable ba = () -> repeat(iterations, start, () -> locks.exclusive("b", "a").waitTime(Duration.ofSeconds(10))
                .run(() -> completed.incrementAndGet()));

        CompletableFuture<Void> first = CompletableFuture.runAsync(ab, OwnThread.EACH);
        CompletableFuture<Void> second = CompletableFuture.runAsync(ba, OwnThread.EACH);
        start.countDown();

        CompletableFuture.allOf(first, second).get(45, TimeUnit.SECONDS);
        assertEquals(2 * iterations, completed.get());
    }

    @Test
    void aKeyNamedTwiceIsTakenOnce() {
        assertEquals("ran", locks.exclusive("a", "a").waitTime(Duration.ZERO).get(() -> "ran"));
        assertTrue(OtherOwner.gets(locks.exclusive("a")));
    }

    private static void repeat(int times, CountDownLatch start, Runnable action) {
        try {
            start.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        for (int i = 0; i < times; i++) {
            action.run();
        }
    }
}
