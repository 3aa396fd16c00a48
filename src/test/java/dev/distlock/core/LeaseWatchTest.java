package dev.distlock.core;

import dev.distlock.DistributedLocks;
import dev.distlock.LockLostException;
import dev.distlock.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A lock that goes missing while its method runs is noticed then, not only at release. */
@Timeout(30)
class LeaseWatchTest {

    /** Watchdog lease 1.5 s: the lease is checked every 0.5 s. */
    private static final RedissonClient client = TestRedis.newClient(config -> config.setLockWatchdogTimeout(1500));

    @AfterAll
    static void shutDown() {
        client.shutdown();
    }

    @Test
    void lossIsReportedWhileTheMethodStillRuns() throws Exception {
        CountDownLatch lost = new CountDownLatch(1);
        AtomicInteger reports = new AtomicInteger();
        DistributedLocks locks = DistributedLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("watch"))
                .listener(new LockListener() {
                    @Override
                    public void lost(String key, LockMode mode) {
                        reports.incrementAndGet();
                        lost.countDown();
                    }
                }).build();
        AtomicLong noticedAfterMillis = new AtomicLong(-1);
        assertThrows(LockLostException.class, () -> locks.exclusive("job").run(() -> {
            client.getKeys().delete(locks.redisKey("job", false)); // Redis lost it
            long deleted = System.nanoTime();
            try {
                if (lost.await(5, TimeUnit.SECONDS)) {
                    noticedAfterMillis.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - deleted));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertTrue(noticedAfterMillis.get() >= 0, "the loss was not noticed while the method ran");
        assertTrue(noticedAfterMillis.get() < 2000, "noticed after " + noticedAfterMillis.get() + " ms");
        assertEquals(1, reports.get(), "told once, not again at release");
    }

    @Test
    void heldLockIsNotReportedLost() throws Exception {
        AtomicInteger reports = new AtomicInteger();
        DistributedLocks locks = DistributedLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("watch"))
                .listener(new LockListener() {
                    @Override
                    public void lost(String key, LockMode mode) {
                        reports.incrementAndGet();
                    }
                }).build();
        locks.exclusive("job").run(() -> sleep(Duration.ofMillis(2500))); // several watch periods and renewals
        assertEquals(0, reports.get());
    }

    /**
     * The watch is one schedule for the whole JVM, and a scheduled task that throws is never run
     * again. A check that throws an Error (here from a stand-in lock) must not end the watch for
     * every other lock: a real lock lost afterwards is still noticed, and the failing one is
     * reported once its lease has passed unconfirmed. Without the catch in the watch's round,
     * the loss below goes unnoticed.
     */
    @Test
    void aCheckThatThrowsDoesNotStopTheWatch() throws Exception {
        RLock failing = (RLock) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {RLock.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("isHeldByThreadAsync")) {
                        throw new AssertionError("a check that fails before it starts");
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        Tenure failingTenure = new Tenure(failing, LockOwner.nextId(), true, 0);
        CountDownLatch failingReported = new CountDownLatch(1);
        LeaseWatch.watch(failingTenure, 300, failingReported::countDown);
        sleep(Duration.ofMillis(250)); // the failing check has run by now

        CountDownLatch lost = new CountDownLatch(1);
        DistributedLocks locks = DistributedLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("watch"))
                .listener(new LockListener() {
                    @Override
                    public void lost(String key, LockMode mode) {
                        lost.countDown();
                    }
                }).build();
        AtomicLong noticed = new AtomicLong(-1);
        assertThrows(LockLostException.class, () -> locks.exclusive("job").run(() -> {
            client.getKeys().delete(locks.redisKey("job", false));
            try {
                if (lost.await(5, TimeUnit.SECONDS)) {
                    noticed.set(1);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertEquals(1, noticed.get(), "a lock lost after a check threw was not noticed: the watch stopped");
        assertTrue(failingReported.await(5, TimeUnit.SECONDS), "the lock whose check threw was never reported");
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
