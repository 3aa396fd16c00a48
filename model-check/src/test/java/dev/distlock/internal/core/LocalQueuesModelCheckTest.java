package dev.distlock.internal.core;

import dev.distlock.spi.BackendLease;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The local queue and handoff, model-checked: Lincheck runs the callers below under many
 * interleavings of their shared-memory steps (not the ones a scheduler happens to produce) and
 * fails on the first that breaks a property or leaves a caller blocked forever.
 *
 * <p>The callers use {@link LocalQueues} as {@code Acquisitions} and {@code Releases} do. A caller
 * waits for the key's turn (as long as it takes, or tries once and times out); with the turn, it takes
 * the tenure the previous holder handed over, or else acquires one from the backend. When it is done
 * it hands the tenure on if others wait and the lease is intact, otherwise gives it back to the
 * backend, and leaves. A tenure left behind by a holder whose successors all gave up goes back to the
 * backend through the queue's {@code abandoned} callback.
 *
 * <p>Properties: at most one caller at a time holds a tenure of the key, and the backend never has
 * two tenures of it out at once (the local queue must never make a caller acquire while a handed-over
 * tenure is still waiting); every tenure is given back exactly once; no queue is left behind; no
 * caller waits forever once the key is free (a deadlock fails the run).
 *
 * <p>The twin plants the bug the protocol exists to prevent, a hand-over after the turn was already
 * given up, and shows the checker finds it.
 */
@Timeout(300)
class LocalQueuesModelCheckTest {

    private static final int INVOCATIONS = 3_000;
    private static final int TENURES = 8;

    @Test
    void atMostOneHolderEveryTenureReturnedNoQueueLeft() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> new Scenario(false).run());
    }

    @Test
    void aHandOverAfterTheTurnWasGivenUpIsFound() {
        AssertionError found = assertThrows(AssertionError.class,
                () -> Lincheck.runConcurrentTest(INVOCATIONS, () -> new Scenario(true).run()));
        assertTrue(found.getMessage().contains("two tenures") || found.getMessage().contains("given back"), found.getMessage());
    }

    /** Tenures are identities here: the queue only stores and passes them. Made once, outside the checked runs. */
    private static final Tenure[] POOL = new Tenure[TENURES];

    static {
        LeaseWatch watch = new LeaseWatch("model-check"); // never asked to watch: starts no thread
        for (int i = 0; i < TENURES; i++) {
            POOL[i] = new Tenure(watch, "k", new IdleLease(), false);
        }
    }

    /** One checked run: three callers on one key, one of which tries once. */
    private static final class Scenario {
        private final boolean handOverAfterLeaving;
        /** Tenures the backend has out; more than one is two holders in the store. */
        private final AtomicInteger outstanding = new AtomicInteger();
        /** Callers inside the section; more than one is two holders in this JVM. */
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger issued = new AtomicInteger();
        /** Per tenure issued: how many times it was given back. */
        private final AtomicReferenceArray<Integer> returned = new AtomicReferenceArray<>(TENURES);
        private final LocalQueues queues = new LocalQueues(this::giveBack);

        Scenario(boolean handOverAfterLeaving) {
            this.handOverAfterLeaving = handOverAfterLeaving;
        }

        void run() {
            Thread first = new Thread(() -> caller(-1, true));
            Thread second = new Thread(() -> caller(-1, false)); // its lease was lost: it never hands on
            Thread third = new Thread(() -> caller(0, true));    // tries once
            first.start();
            second.start();
            third.start();
            join(first);
            join(second);
            join(third);
            check(outstanding.get() == 0, "a tenure was never given back: " + outstanding.get() + " out");
            for (int i = 0; i < issued.get(); i++) {
                check(Integer.valueOf(1).equals(returned.get(i)), "tenure " + i + " given back " + returned.get(i) + " times");
            }
            check(queues.size() == 0, "a queue outlived its callers");
        }

        private void caller(long waitNanos, boolean leaseIntact) {
            LocalQueues.Queue queue;
            try {
                queue = queues.enter("k", waitNanos);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            if (queue == null) {
                return; // timed out: holds nothing
            }
            Tenure tenure = queue.takeHandedOver();
            if (tenure == null) {
                tenure = acquire();
            }
            check(inside.incrementAndGet() == 1, "two callers hold the key at once");
            inside.decrementAndGet();
            if (leaseIntact && queue.othersWaiting()) {
                if (handOverAfterLeaving) {
                    queues.leave("k", queue);
                    queue.handOver(tenure);
                } else {
                    queue.handOver(tenure);
                    queues.leave("k", queue);
                }
            } else {
                giveBack(tenure);
                queues.leave("k", queue);
            }
        }

        private Tenure acquire() {
            check(outstanding.incrementAndGet() == 1, "two tenures of one key are out at once in the backend");
            return POOL[issued.getAndIncrement()];
        }

        private void giveBack(Tenure tenure) {
            for (int i = 0; i < TENURES; i++) {
                if (POOL[i] == tenure) {
                    returned.accumulateAndGet(i, 1, (before, one) -> before == null ? one : before + one);
                }
            }
            outstanding.decrementAndGet();
        }

        private static void join(Thread thread) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }

        private static void check(boolean property, String violation) {
            if (!property) {
                throw new AssertionError(violation);
            }
        }
    }

    /** A lease nobody asks anything in these runs. */
    private static final class IdleLease implements BackendLease {
        @Override
        public long fencingToken() {
            return 0;
        }

        @Override
        public boolean renewed() {
            return true;
        }

        @Override
        public CompletableFuture<Boolean> isHeld() {
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletableFuture<Boolean> release() {
            return CompletableFuture.completedFuture(true);
        }
    }
}
