package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.memory.InMemoryLockBackend;
import dev.distlock.DistributedLocks;
import dev.distlock.LocalHandoff;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.OverlapDetector;
import dev.distlock.testkit.TestRedis;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A held lock passed between callers in one JVM without Redis ({@link LocalHandoff}). Two
 * {@link DistributedLocks} on two Redisson clients stand for two JVMs: each has its own local
 * queues, and Redis sees two clients.
 */
class LocalHandoffTest {

    private static final RedissonClient client = TestRedis.sharedClient();

    @Test
    void passedOnLockStillExcludesAndLosesNoUpdate() throws Exception {
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("handoff")).build();
        OverlapDetector overlap = new OverlapDetector(); // a lost update if two ran at once
        runThreads(8, () -> {
            for (int i = 0; i < 200; i++) {
                locks.exclusive("hot").waitForever().run(overlap::section);
            }
        });
        assertEquals(0, overlap.violations());
        assertEquals(1600, overlap.count());
        long handoffs = EngineAccess.executor(locks).handoffCount();
        assertTrue(handoffs > 800, "most acquisitions should have been handoffs, were " + handoffs + " of 1600");
        assertNoTrace(locks, "hot");
    }

    @Test
    void otherJvmGetsTheLockWhileThisOneKeepsPassingItOn() throws Exception {
        String prefix = TestRedis.uniquePrefix("handoff");
        DistributedLocks busy = RedisLocks.builder(client).keyPrefix(prefix).build();
        RedissonClient otherJvm = TestRedis.newClient();
        try {
            DistributedLocks other = RedisLocks.builder(otherJvm).keyPrefix(prefix).build();
            List<Long> waits = whileBusy(busy, 1, () -> {
                List<Long> measured = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    long started = System.nanoTime();
                    other.exclusive("hot").waitTime(Duration.ofSeconds(2)).run(() -> { });
                    measured.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                }
                return measured;
            });
            assertTrue(EngineAccess.executor(busy).handoffCount() > 0, "the busy JVM never passed the lock on");
            assertTrue(waits.stream().allMatch(wait -> wait < 2000), "waits " + waits);
        } finally {
            otherJvm.shutdown();
        }
    }

    /** Twin of the test above: without a bound on handoffs, the other JVM starves. */
    @Test
    void withoutBoundTheOtherJvmStarves() throws Exception {
        String prefix = TestRedis.uniquePrefix("handoff");
        DistributedLocks busy = RedisLocks.builder(client).keyPrefix(prefix)
                .localHandoff(new LocalHandoff(Integer.MAX_VALUE, Duration.ofDays(1))).build();
        RedissonClient otherJvm = TestRedis.newClient();
        try {
            DistributedLocks other = RedisLocks.builder(otherJvm).keyPrefix(prefix).build();
            // Each section holds the lock 10 ms: a caller that passed it on waits for the store to
            // confirm its hold before it queues again, and on a loaded machine that round trip can
            // outlast seven 1 ms sections, leaving the queue empty and the lock given back.
            Throwable outcome = whileBusy(busy, 10, () -> {
                // The busy JVM's chain is under way: it holds the lock and passes it on (on a loaded
                // machine its threads may take longer than a fixed pause to get there).
                assertTrue(Waits.until(30_000, () -> EngineAccess.executor(busy).handoffCount() > 8),
                        "the busy JVM never passed the lock on");
                try {
                    other.exclusive("hot").waitTime(Duration.ofSeconds(1)).run(() -> { });
                    return null;
                } catch (LockTimeoutException starved) {
                    return starved;
                }
            });
            assertInstanceOf(LockTimeoutException.class, outcome);
        } finally {
            otherJvm.shutdown();
        }
    }

    @Test
    void writersPassOnTheWriteLockAndReadersOfAnotherJvmStillGetIn() throws Exception {
        String prefix = TestRedis.uniquePrefix("handoff");
        DistributedLocks writers = RedisLocks.builder(client).keyPrefix(prefix).build();
        AtomicInteger writing = new AtomicInteger();
        AtomicInteger readWhileWriting = new AtomicInteger();
        RedissonClient otherJvm = TestRedis.newClient();
        try {
            DistributedLocks readers = RedisLocks.builder(otherJvm).keyPrefix(prefix).build();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> busy = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    busy.add(pool.submit(() -> {
                        while (!stop.get()) {
                            writers.write("doc").waitForever().run(() -> {
                                writing.incrementAndGet();
                                Waits.sleep(1);
                                writing.decrementAndGet();
                            });
                        }
                        return null;
                    }));
                }
                Thread.sleep(100);
                for (int i = 0; i < 5; i++) {
                    readers.read("doc").waitTime(Duration.ofSeconds(2)).run(() -> {
                        if (writing.get() != 0) {
                            readWhileWriting.incrementAndGet();
                        }
                    });
                }
                stop.set(true);
                for (Future<?> call : busy) {
                    call.get(30, TimeUnit.SECONDS);
                }
            } finally {
                stop.set(true);
                pool.shutdownNow();
            }
        } finally {
            otherJvm.shutdown();
        }
        assertEquals(0, readWhileWriting.get());
        assertTrue(EngineAccess.executor(writers).handoffCount() > 0, "the write lock was never passed on");
    }

    /**
     * The lock vanishes from Redis (a restart without data, a failover) while one caller holds it
     * and another waits: the holder passes it on, yet learns that it was lost. The caller it went to
     * either took it before the holder's check answered, ran under it and is told too, or found it
     * broken and took a fresh lock in Redis (BrokenTenureTest makes each case happen); the next
     * caller takes a fresh lock in Redis.
     */
    @Test
    void everyCallerThatRanUnderALostLockIsTold() throws Exception {
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("handoff")).build();
        String redisKey = EngineAccess.executor(locks).lockName(LockMode.EXCLUSIVE, "hot");
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Throwable> first = outcome(() -> locks.exclusive("hot").waitForever().run(() -> {
            holding.countDown();
            await(finish);
        }));
        assertTrue(holding.await(10, TimeUnit.SECONDS));
        AtomicBoolean secondRan = new AtomicBoolean();
        AtomicBoolean secondHeldInRedis = new AtomicBoolean();
        Thread[] secondThread = new Thread[1];
        CompletableFuture<Throwable> second = outcome(() -> {
            secondThread[0] = Thread.currentThread();
            locks.exclusive("hot").waitForever().run(() -> {
                secondHeldInRedis.set(client.getLock(redisKey).isLocked());
                secondRan.set(true);
            });
        });
        awaitParked(() -> secondThread[0]);

        assertEquals(1, client.getKeys().delete(redisKey));
        finish.countDown();

        assertInstanceOf(LockLostException.class, first.get(10, TimeUnit.SECONDS));
        Throwable secondOutcome = second.get(10, TimeUnit.SECONDS);
        assertTrue(secondRan.get());
        if (secondHeldInRedis.get()) {
            assertNull(secondOutcome, "the second caller ran under a fresh lock of its own");
        } else {
            assertInstanceOf(LockLostException.class, secondOutcome, "the second caller ran under the lost lock");
        }
        assertEquals(1, EngineAccess.executor(locks).handoffCount(), "the lock should have been passed on once");
        locks.exclusive("hot").run(() -> assertTrue(client.getLock(redisKey).isLocked(), "a fresh lock in Redis"));
        assertNoTrace(locks, "hot");
    }

    /** A caller with a fixed lease is not handed a watchdog lock: its lease must run out as it asked. */
    @Test
    void fixedLeaseCallerGetsALockOfItsOwnLease() throws Exception {
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("handoff")).build();
        String redisKey = EngineAccess.executor(locks).lockName(LockMode.EXCLUSIVE, "hot");
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Throwable> first = outcome(() -> locks.exclusive("hot").waitForever().run(() -> {
            holding.countDown();
            await(finish);
        }));
        assertTrue(holding.await(10, TimeUnit.SECONDS));
        AtomicLong ttlSeen = new AtomicLong(-5);
        Thread[] secondThread = new Thread[1];
        CompletableFuture<Throwable> second = outcome(() -> {
            secondThread[0] = Thread.currentThread();
            locks.exclusive("hot").leaseTime(Duration.ofSeconds(3)).waitForever()
                    .run(() -> ttlSeen.set(client.getLock(redisKey).remainTimeToLive()));
        });
        awaitParked(() -> secondThread[0]);
        finish.countDown();
        assertEquals(null, first.get(10, TimeUnit.SECONDS));
        assertEquals(null, second.get(10, TimeUnit.SECONDS));
        assertEquals(1, EngineAccess.executor(locks).handoffCount(), "the test needs the watchdog lock left for the second caller");
        assertTrue(ttlSeen.get() > 0 && ttlSeen.get() <= 3000, "TTL inside the fixed-lease call: " + ttlSeen.get() + " ms");
        assertNoTrace(locks, "hot");
    }

    /** Callers that give up while the lock is being left for them: it must go back to Redis. */
    @Test
    void lockLeftForCallersThatGaveUpGoesBackToRedis() {
        List<Tenure> abandoned = new ArrayList<>();
        LocalQueues queues = new LocalQueues(abandoned::add);
        LocalQueues.Queue holder = enter(queues, -1);
        CompletableFuture<LocalQueues.Queue> waiter = CompletableFuture.supplyAsync(
                () -> enter(queues, TimeUnit.MILLISECONDS.toNanos(200)));
        Tenure tenure = new Tenure(null, "k", new InMemoryLockBackend().leaseFor("k"), false);
        holder.handOver(tenure); // decided while the waiter still waited
        assertEquals(null, waiter.join(), "the waiter gave up");
        assertTrue(abandoned.isEmpty());
        queues.leave("k", holder);
        assertEquals(List.of(tenure), abandoned);
        assertEquals(0, queues.size());
    }

    @Test
    void timeoutsUnderHandoffLeaveNoLockOrQueueBehind() throws Exception {
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("handoff")).build();
        AtomicInteger timeouts = new AtomicInteger();
        runThreads(8, () -> {
            for (int i = 0; i < 60; i++) {
                try {
                    locks.exclusive("hot").waitTime(Duration.ofMillis(3)).run(() -> Waits.sleep(1));
                } catch (LockTimeoutException e) {
                    timeouts.incrementAndGet();
                }
            }
        });
        assertTrue(timeouts.get() > 0, "the test needs callers that give up");
        assertTrue(EngineAccess.executor(locks).handoffCount() > 0, "the test needs handoffs");
        assertNoTrace(locks, "hot");
    }

    // ------------------------------------------------------------------ helpers

    private static LocalQueues.Queue enter(LocalQueues queues, long waitNanos) {
        try {
            return queues.enter("k", waitNanos);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Nothing of the lock is left: no key in Redis (once the release has landed), no local queue. */
    private static void assertNoTrace(DistributedLocks locks, String key) throws InterruptedException {
        String redisKey = EngineAccess.executor(locks).lockName(LockMode.EXCLUSIVE, key);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.getKeys().countExists(redisKey) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, client.getKeys().countExists(redisKey), "lock key left in Redis");
        assertEquals(0, EngineAccess.executor(locks).localQueueCount(), "local queue left behind");
    }

    /**
     * Eight threads of {@code busy} keep locking "hot" (1 ms each) while {@code during} runs: enough
     * that some always queue while others wait for their confirmation.
     */
    private static <T> T whileBusy(DistributedLocks busy, long holdMillis, java.util.concurrent.Callable<T> during) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                calls.add(pool.submit(() -> {
                    while (!stop.get()) {
                        busy.exclusive("hot").waitForever().run(() -> Waits.sleep(holdMillis));
                    }
                    return null;
                }));
            }
            Thread.sleep(100);
            T result = during.call();
            stop.set(true);
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
            return result;
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    private static void runThreads(int threads, Runnable body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                calls.add(pool.submit(body));
            }
            for (Future<?> call : calls) {
                call.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Runs {@code call} on a thread of its own; completes with what it threw, or null. */
    private static CompletableFuture<Throwable> outcome(Runnable call) {
        CompletableFuture<Throwable> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                call.run();
                result.complete(null);
            } catch (Throwable e) {
                result.complete(e);
            }
        });
        thread.start();
        return result;
    }

    /** Waits until the thread is parked: queued behind the holder. */
    private static void awaitParked(java.util.function.Supplier<Thread> thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Thread current = thread.get();
            if (current != null && current.getState() == Thread.State.WAITING) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the second caller never queued");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
