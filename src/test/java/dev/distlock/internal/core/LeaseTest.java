package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.testkit.Waits;
import dev.distlock.testkit.backend.OtherOwner;

import dev.distlock.DistributedLocks;
import dev.distlock.LockLostException;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Without a lease the watchdog keeps the lock for as long as the work runs; a fixed lease expires
 * on its own, and the release then reports the loss instead of silently succeeding.
 */
@Timeout(60)
class LeaseTest {

    private static final long WATCHDOG_MILLIS = 1_000;
    private static final long POLL_MILLIS = 200;

    /** The holder: a watchdog lease of 1 s, renewed every third of it. */
    private static RedissonClient holderClient;
    /** Everybody else: another client, so another connection and another Redisson id. */
    private static RedissonClient otherClient;

    private final String prefix = TestRedis.uniquePrefix("lease");
    private final DistributedLocks holder = RedisLocks.builder(holderClient).keyPrefix(prefix).build();
    private final DistributedLocks other = RedisLocks.builder(otherClient).keyPrefix(prefix).build();

    @BeforeAll
    static void connect() {
        holderClient = TestRedis.newClient(config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS));
        otherClient = TestRedis.newClient();
    }

    @AfterAll
    static void disconnect() {
        holderClient.shutdown();
        otherClient.shutdown();
    }

    @Test
    void watchdogKeepsTheLockWhileTheWorkRuns() throws Exception {
        long workMillis = 3_500;
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Void> work = CompletableFuture.runAsync(() -> holder.exclusive("report").run(() -> {
            started.countDown();
            Waits.sleep(workMillis);
        }), OwnThread.EACH);
        assertTrue(started.await(10, TimeUnit.SECONDS));
        long startedAt = System.nanoTime();

        // Poll for three watchdog periods, stopping well before the work ends.
        long pollUntil = startedAt + TimeUnit.MILLISECONDS.toNanos(workMillis - 500);
        int polls = 0;
        long longestTtl = 0;
        while (System.nanoTime() < pollUntil) {
            assertFalse(OtherOwner.gets(other.exclusive("report")),
                    "another owner got the lock " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt)
                            + " ms into the work");
            longestTtl = Math.max(longestTtl, otherClient.getLock(EngineAccess.lockName(holder, "report", false)).remainTimeToLive());
            polls++;
            Waits.sleep(POLL_MILLIS);
        }

        assertTrue(polls >= 5, "polled only " + polls + " times");
        assertTrue(longestTtl > 0 && longestTtl <= WATCHDOG_MILLIS,
                "the lease is the 1 s watchdog lease, so renewal is what kept it: ttl " + longestTtl + " ms");
        work.get(10, TimeUnit.SECONDS); // no LockLostException: the lease was never lost
        assertTrue(OtherOwner.gets(other.exclusive("report")), "free once the work returned");
    }

    @Test
    void expiredFixedLeaseIsReportedAtRelease() throws Exception {
        long leaseMillis = 500;
        long workMillis = 1_500;
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<String> work = CompletableFuture.supplyAsync(() -> holder.exclusive("report")
                .leaseTime(Duration.ofMillis(leaseMillis))
                .get(() -> {
                    started.countDown();
                    Waits.sleep(workMillis);
                    return "finished";
                }), OwnThread.EACH);
        assertTrue(started.await(10, TimeUnit.SECONDS));

        // Waits for the lease to run out, well inside the work's sleep.
        String otherResult = other.exclusive("report").waitTime(Duration.ofMillis(workMillis - 300)).get(() -> "other ran");

        assertEquals("other ran", otherResult);
        assertFalse(work.isDone(), "the other owner got the lock only after the first one finished");
        ExecutionException failure = assertThrows(ExecutionException.class, () -> work.get(10, TimeUnit.SECONDS));
        LockLostException lost = assertInstanceOf(LockLostException.class, failure.getCause());
        assertEquals(EngineAccess.lockName(holder, "report", false), lost.key());
    }

    @Test
    void aLostLeaseNeverMasksTheBusinessException() throws Exception {
        IllegalStateException outOfStock = new IllegalStateException("out of stock");
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Void> work = CompletableFuture.runAsync(() -> holder.exclusive("report")
                .leaseTime(Duration.ofMillis(300))
                .run(() -> {
                    started.countDown();
                    Waits.sleep(1_200);
                    throw outOfStock;
                }), OwnThread.EACH);
        assertTrue(started.await(10, TimeUnit.SECONDS));
        assertEquals("other ran", other.exclusive("report").waitTime(Duration.ofMillis(900)).get(() -> "other ran"));

        ExecutionException failure = assertThrows(ExecutionException.class, () -> work.get(10, TimeUnit.SECONDS));
        assertSame(outOfStock, failure.getCause());
        assertEquals(1, outOfStock.getSuppressed().length);
        assertInstanceOf(LockLostException.class, outOfStock.getSuppressed()[0]);
    }
}
