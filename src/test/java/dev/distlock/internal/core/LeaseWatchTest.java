package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.spi.BackendLease;

import dev.distlock.DistributedLocks;
import dev.distlock.LockListener;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.testkit.TestRedis;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.lang.reflect.Proxy;
import java.util.HashSet;
import java.util.Set;
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
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("watch"))
                .listener(new LockListener() {
                    @Override
                    public void lost(String key, LockMode mode) {
                        reports.incrementAndGet();
                        lost.countDown();
                    }
                }).build();
        AtomicLong noticedAfterMillis = new AtomicLong(-1);
        assertThrows(LockLostException.class, () -> locks.exclusive("job").run(() -> {
            client.getKeys().delete(EngineAccess.lockName(locks, "job", false)); // Redis lost it
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
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("watch"))
                .listener(new LockListener() {
                    @Override
                    public void lost(String key, LockMode mode) {
                        reports.incrementAndGet();
                    }
                }).build();
        locks.exclusive("job").run(() -> Waits.sleep(2_500)); // several watch periods and renewals
        assertEquals(0, reports.get());
    }

    /**
     * The watch is one schedule for the whole engine, and a scheduled task that throws is never run
     * again. A check that throws an Error (here from a stand-in lock) must not end the watch for
     * every other lock: a real lock lost afterwards is still noticed, and the failing one is
     * reported once its lease has passed unconfirmed. Without the catch in the watch's round,
     * the loss below goes unnoticed.
     */
    @Test
    void aCheckThatThrowsDoesNotStopTheWatch() throws Exception {
        BackendLease failing = (BackendLease) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BackendLease.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "isHeld" -> throw new AssertionError("a check that fails before it starts");
                    case "renewed" -> true;
                    case "fencingToken" -> 0L;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        CountDownLatch lost = new CountDownLatch(1);
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("watch"))
                .listener(new LockListener() {
                    @Override
                    public void lost(String key, LockMode mode) {
                        lost.countDown();
                    }
                }).build();
        LeaseWatch watch = EngineAccess.executor(locks).leaseWatch();
        Tenure failingTenure = new Tenure(watch, "failing", failing, false);
        CountDownLatch failingReported = new CountDownLatch(1);
        watch.watch(failingTenure, 300, failingReported::countDown);
        Waits.sleep(250); // the failing check has run by now

        AtomicLong noticed = new AtomicLong(-1);
        assertThrows(LockLostException.class, () -> locks.exclusive("job").run(() -> {
            client.getKeys().delete(EngineAccess.lockName(locks, "job", false));
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

    /**
     * The engine's thread belongs to it: none before the first lock, one while locks are used, and
     * gone once the engine is closed (an application that stops leaves no thread behind); a call
     * after that fails without running the work.
     */
    @Test
    void closingTheEngineStopsItsThread() throws Exception {
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("watch")).build();
        Set<Thread> before = watchThreads();
        AtomicInteger ran = new AtomicInteger();
        locks.exclusive("job").run(ran::incrementAndGet);
        Set<Thread> started = watchThreads();
        started.removeAll(before);
        assertEquals(1, started.size(), "the engine's lease watch thread, started by its first lock: " + started);

        locks.close();
        Thread thread = started.iterator().next();
        thread.join(5_000);
        assertTrue(!thread.isAlive(), "the lease watch thread outlived its engine");
        assertThrows(LockServiceUnavailableException.class, () -> locks.exclusive("job").run(ran::incrementAndGet));
        assertEquals(1, ran.get(), "the work ran after the engine was closed");
        locks.close(); // idempotent
    }

    @Test
    void anEngineNeverUsedStartsNoThread() {
        Set<Thread> before = watchThreads();
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("watch")).build();
        Set<Thread> after = watchThreads();
        after.removeAll(before);
        assertEquals(Set.of(), after);
        locks.close();
    }

    private static Set<Thread> watchThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals("distlock-lease-watch") && thread.isAlive()) {
                threads.add(thread);
            }
        }
        return threads;
    }
}
