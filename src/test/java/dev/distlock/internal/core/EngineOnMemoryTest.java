package dev.distlock.internal.core;

import dev.distlock.testing.EngineAccess;

import dev.distlock.memory.InMemoryLockBackend;
import dev.distlock.DistributedLocks;
import dev.distlock.LocalHandoff;
import dev.distlock.LockLostException;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.testing.LostLocks;
import dev.distlock.testkit.OverlapDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine above the backend SPI, on {@link InMemoryLockBackend}: local queueing and handoff, their
 * bounds, a lease lost under a chain of handoffs, the lease watch, a store that is down. No network,
 * so these run in milliseconds and say exactly how often the store was asked.
 */
@Timeout(60)
class EngineOnMemoryTest {

    private final List<DistributedLocks> engines = new ArrayList<>();
    private final LostLocks lost = new LostLocks();

    @AfterEach
    void close() {
        engines.forEach(DistributedLocks::close);
    }

    private DistributedLocks engine(InMemoryLockBackend store, LocalHandoff handoff) {
        DistributedLocks locks = DistributedLocks.builder(store).localHandoff(handoff).listener(lost).build();
        engines.add(locks);
        return locks;
    }

    @Test
    void callersInOneJvmHandTheLockOnAndTheStoreIsAskedFarLessOften() throws Exception {
        InMemoryLockBackend store = new InMemoryLockBackend();
        DistributedLocks locks = engine(store, LocalHandoff.DEFAULT);
        int sections = hammer(locks, 8, 500);
        assertEquals(4_000, sections);
        assertTrue(store.acquisitions() < sections / 4, store.acquisitions() + " store acquisitions for " + sections + " sections");
        assertTrue(EngineAccess.executor(locks).handoffCount() > 0);
        assertEquals(0, EngineAccess.executor(locks).localQueueCount(), "a local queue outlived its use");
        assertTrue(store.held().isEmpty(), "left held: " + store.held());
    }

    @Test
    void withoutHandoffEverySectionAsksTheStore() throws Exception {
        InMemoryLockBackend store = new InMemoryLockBackend();
        DistributedLocks locks = engine(store, LocalHandoff.OFF);
        int sections = hammer(locks, 8, 200);
        assertEquals(sections, store.acquisitions());
        assertEquals(0, EngineAccess.executor(locks).handoffCount());
    }

    @Test
    void theHandoffBoundSendsTheLockBackToTheStore() throws Exception {
        InMemoryLockBackend store = new InMemoryLockBackend();
        DistributedLocks locks = engine(store, new LocalHandoff(4, Duration.ofSeconds(10)));
        int sections = hammer(locks, 8, 250);
        // At most 4 handoffs per tenure: at least one store acquisition per 5 sections.
        assertTrue(store.acquisitions() >= sections / 5, store.acquisitions() + " store acquisitions for " + sections);
    }

    @Test
    void aLeaseLostUnderAChainOfHandoffsIsReportedToTheCallersThatRanUnderIt() throws Exception {
        InMemoryLockBackend store = new InMemoryLockBackend();
        DistributedLocks locks = engine(store, new LocalHandoff(1_000, Duration.ofSeconds(30)));
        String name = EngineAccess.lockName(locks, "chain", false);
        CountDownLatch firstIn = new CountDownLatch(1);
        CountDownLatch lose = new CountDownLatch(1);
        AtomicInteger lostCalls = new AtomicInteger();
        AtomicInteger okCalls = new AtomicInteger();
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int caller = i;
            calls.add(CompletableFuture.runAsync(() -> {
                try {
                    locks.exclusive("chain").waitForever().run(() -> {
                        if (caller == 0) {
                            firstIn.countDown();
                            await(lose);
                        }
                    });
                    okCalls.incrementAndGet();
                } catch (LockLostException e) {
                    lostCalls.incrementAndGet();
                }
            }));
            if (i == 0) {
                assertTrue(firstIn.await(5, TimeUnit.SECONDS));
            }
        }
        Thread.sleep(100); // the other five queue behind the first
        store.lose(name);
        lose.countDown();
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertTrue(lostCalls.get() >= 1, "nobody learnt the lock was lost");
        assertEquals(6, lostCalls.get() + okCalls.get());
        assertTrue(lost.contains(name), "the listener was told: " + lost.keys());
        assertTrue(store.held().isEmpty(), "left held: " + store.held());
        // After the loss the lock is taken afresh, and works.
        assertEquals("again", locks.exclusive("chain").get(() -> "again"));
    }

    @Test
    void theLeaseWatchNoticesALossWhileTheMethodRuns() throws Exception {
        InMemoryLockBackend store = new InMemoryLockBackend(300); // watched every 100 ms
        DistributedLocks locks = engine(store, LocalHandoff.DEFAULT);
        String name = EngineAccess.lockName(locks, "watched", false);
        long[] noticedAfter = {-1};
        assertThrows(LockLostException.class, () -> locks.exclusive("watched").run(() -> {
            store.lose(name);
            long lostAt = System.nanoTime();
            while (!lost.contains(name) && System.nanoTime() - lostAt < TimeUnit.SECONDS.toNanos(5)) {
                Thread.onSpinWait();
            }
            noticedAfter[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lostAt);
        }));
        assertTrue(noticedAfter[0] >= 0 && noticedAfter[0] < 1_000, "noticed after " + noticedAfter[0] + " ms");
    }

    @Test
    void aStoreThatIsDownFailsTheCallWithoutRunningIt() {
        InMemoryLockBackend store = new InMemoryLockBackend();
        DistributedLocks locks = engine(store, LocalHandoff.DEFAULT);
        store.down(true);
        AtomicInteger ran = new AtomicInteger();
        assertThrows(LockServiceUnavailableException.class, () -> locks.exclusive("down").run(ran::incrementAndGet));
        assertEquals(0, ran.get());
        store.down(false);
        locks.exclusive("down").run(ran::incrementAndGet);
        assertEquals(1, ran.get());
    }

    /** Threads × rounds sections on one key, each checked for overlap; the sections run. */
    private static int hammer(DistributedLocks locks, int threads, int rounds) throws Exception {
        OverlapDetector overlap = new OverlapDetector(0); // no pause: a yield inside each section
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            runs.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < rounds; i++) {
                    locks.exclusive("hot").waitForever().run(() -> overlap.section(Thread::yield));
                }
            }, runnable -> new Thread(runnable).start()));
        }
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);
        assertEquals(0, overlap.violations(), "two holders at once");
        return (int) overlap.sections();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
