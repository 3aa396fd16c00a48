package dev.distlock.internal.core;

import dev.distlock.DistributedLocks;
import dev.distlock.ForcedRelease;
import dev.distlock.LocalHandoff;
import dev.distlock.LockInfo;
import dev.distlock.LockLostException;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.memory.InMemoryLockBackend;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.testkit.backend.DelegatingBackend;
import dev.distlock.testing.EngineAccess;
import dev.distlock.testing.LostLocks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tenure known lost, or that could not be confirmed, is never handed on, and whoever holds it is
 * told (issue 36, item 3). Two engines over one in-memory store stand for two JVMs sharing a store;
 * the store loses a held lock as Redis can (a restart, a failover), or the engine ends it by hand.
 */
@Timeout(60)
class BrokenTenureTest {

    /** A store whose leases' "still held?" answers can be held back, to be answered by the test. */
    static final class Gated extends DelegatingBackend {
        final InMemoryLockBackend store;
        final AtomicReference<CompletableFuture<Boolean>> gate = new AtomicReference<>();

        Gated() {
            this(new InMemoryLockBackend(30_000));
        }

        private Gated(InMemoryLockBackend store) {
            super(store);
            this.store = store;
        }

        @Override
        public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
            BackendLease lease = super.acquire(name, policy, deadlineNanos);
            if (lease == null) {
                return null;
            }
            return new BackendLease() {
                @Override
                public long fencingToken() {
                    return lease.fencingToken();
                }

                @Override
                public boolean renewed() {
                    return lease.renewed();
                }

                @Override
                public CompletableFuture<Boolean> isHeld() {
                    CompletableFuture<Boolean> held = gate.getAndSet(null);
                    return held != null ? held : lease.isHeld();
                }

                @Override
                public CompletableFuture<Boolean> release() {
                    return lease.release();
                }
            };
        }
    }

    private final Gated store = new Gated();
    private final LostLocks lost = new LostLocks();
    /** Hands a lock on however long it was held, so that each test's hand-over happens whatever the machine's pace. */
    private final DistributedLocks here = DistributedLocks.builder(store).listener(lost)
            .localHandoff(new LocalHandoff(128, Duration.ofSeconds(60))).build();
    private final DistributedLocks elsewhere = DistributedLocks.builder(store).build();

    @AfterEach
    void close() {
        here.close();
        elsewhere.close();
    }

    /**
     * The store lost the lock while A held it, and a caller elsewhere took it. A finishes with B
     * queued behind it: the check of A's tenure says lost, and B must not be handed that tenure —
     * it would run beside the caller elsewhere.
     */
    @Test
    void aTenureFoundLostAsItIsHandedOnGoesToNoOne() throws Exception {
        String name = EngineAccess.lockName(here, "k", false);
        Holder a = new Holder(here, "k");
        AtomicBoolean elsewhereInside = new AtomicBoolean();
        AtomicBoolean overlap = new AtomicBoolean();
        CompletableFuture<Void> b = CompletableFuture.runAsync(() -> here.exclusive("k").waitTime(Duration.ofSeconds(20))
                .run(() -> overlap.compareAndSet(false, elsewhereInside.get())));
        awaitQueued(here, "k");

        store.store.lose(name);
        Holder c = new Holder(elsewhere, "k", () -> elsewhereInside.set(true));
        a.letGo();
        ExecutionException aFailure = assertThrows(ExecutionException.class, () -> a.done.get(10, TimeUnit.SECONDS));
        assertInstanceOf(LockLostException.class, aFailure.getCause(), "A finished after the store lost its lock");
        Thread.sleep(300); // B, if handed the lost tenure, runs now, beside C
        elsewhereInside.set(false);
        c.letGo();
        c.done.get(10, TimeUnit.SECONDS);
        assertDoesNotThrow(() -> b.get(20, TimeUnit.SECONDS), "B ran under the lost tenure and found it gone at its release");
        assertFalse(overlap.get(), "B ran under the lost tenure while the caller elsewhere held the lock");
    }

    /**
     * B took the lock over from A; the store then loses it, and A's check cannot be answered, so the
     * tenure is not to be trusted. B must hear of the loss while it runs — at once, not at its next
     * lease check (a third of 30 s) nor only at its release.
     */
    @Test
    void theHolderOfATenureThatCouldNotBeConfirmedIsToldOfItsLoss() throws Exception {
        String name = EngineAccess.lockName(here, "k", false);
        Holder a = new Holder(here, "k");
        CountDownLatch bRuns = new CountDownLatch(1);
        CountDownLatch bGoesOn = new CountDownLatch(1);
        CompletableFuture<Void> b = CompletableFuture.runAsync(() -> here.exclusive("k").waitTime(Duration.ofSeconds(20)).run(() -> {
            bRuns.countDown();
            await(bGoesOn);
        }));
        awaitQueued(here, "k");
        CompletableFuture<Boolean> unanswered = new CompletableFuture<>();
        store.gate.set(unanswered);

        a.letGo();
        assertTrue(bRuns.await(10, TimeUnit.SECONDS), "B was handed the lock");
        store.store.lose(name);
        long lostAt = System.nanoTime();
        unanswered.completeExceptionally(new IllegalStateException("no answer from the store"));
        ExecutionException aFailure = assertThrows(ExecutionException.class, () -> a.done.get(10, TimeUnit.SECONDS));
        assertInstanceOf(LockServiceUnavailableException.class, aFailure.getCause());

        while (!lost.contains(name)) {
            assertTrue(System.nanoTime() - lostAt < TimeUnit.SECONDS.toNanos(5), "B was not told within 5 s while it ran");
            Thread.sleep(10);
        }
        bGoesOn.countDown();
        ExecutionException bFailure = assertThrows(ExecutionException.class, () -> b.get(10, TimeUnit.SECONDS));
        assertInstanceOf(LockLostException.class, bFailure.getCause());
    }

    /**
     * A lock ended by hand ({@code forceRelease}) is not passed on by its holder here, even if the
     * holder finishes before the lease watch's next round: a caller elsewhere may hold it already.
     */
    @Test
    void aLockEndedByHandIsNotPassedOnHere() throws Exception {
        Holder a = new Holder(here, "k");
        AtomicBoolean elsewhereInside = new AtomicBoolean();
        AtomicBoolean overlap = new AtomicBoolean();
        CompletableFuture<Void> b = CompletableFuture.runAsync(() -> here.exclusive("k").waitTime(Duration.ofSeconds(20)).run(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (!elsewhereInside.get() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            overlap.set(elsewhereInside.get());
        }));
        awaitQueued(here, "k");

        // A finishes at once, well before the lease watch's next round (100 ms) could look at the lock.
        assertEquals(1, here.forceRelease("k", ForcedRelease.acknowledging("test")).size());
        a.letGo();
        Holder c = new Holder(elsewhere, "k", () -> elsewhereInside.set(true));
        assertThrows(ExecutionException.class, () -> a.done.get(10, TimeUnit.SECONDS));
        Thread.sleep(1_200);
        elsewhereInside.set(false);
        c.letGo();
        c.done.get(10, TimeUnit.SECONDS);
        b.get(20, TimeUnit.SECONDS);
        assertFalse(overlap.get(), "B was handed the lock ended by hand and ran while the caller elsewhere held it");
    }

    /** A caller that takes a key and holds it until told to let go. */
    private static final class Holder {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch letGo = new CountDownLatch(1);
        final CompletableFuture<Void> done;

        Holder(DistributedLocks locks, String key) throws InterruptedException {
            this(locks, key, () -> { });
        }

        Holder(DistributedLocks locks, String key, Runnable inside) throws InterruptedException {
            done = CompletableFuture.runAsync(() -> locks.exclusive(key).waitTime(Duration.ofSeconds(20)).run(() -> {
                inside.run();
                holding.countDown();
                await(letGo);
            }));
            assertTrue(holding.await(10, TimeUnit.SECONDS), "the holder of " + key + " got it");
        }

        void letGo() {
            letGo.countDown();
        }
    }

    private static void awaitQueued(DistributedLocks locks, String key) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            for (LockInfo info : locks.inspect(key, 10)) {
                if (info.key().equals(key) && info.waitingHere() > 0) {
                    return;
                }
            }
            Thread.sleep(2);
        }
        throw new AssertionError("nobody queued for " + key);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
