package dev.distlock.internal.core;

import dev.distlock.spi.BackendLease;

import dev.distlock.LocalHandoff;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;

/**
 * One unbroken holding of a lock by this JVM: one {@link BackendLease}. Local holders of an
 * exclusive or write lock may pass a tenure from one to the next without the backend (see
 * {@link LocalHandoff}); the backend sees one acquisition and one release for the whole run.
 *
 * <p>A holder that passed the lock on still learns whether it held it to the end: it waits for a
 * <em>confirmation</em>, a check in the backend sent after it finished. Confirmations are shared: one
 * check, sent at most every {@link #CONFIRM_INTERVAL_NANOS}, answers for every holder that finished
 * before it was sent, and the final release answers for those still waiting. They are asked even
 * where the lease is known held (see {@link #knownHeldFor}): a holder is told of a lock lost by any
 * means, a deleted key included, not only of one its lease or connections show lost.
 */
final class Tenure {

    /** No check sent yet; shared by all tenures, since a completed future cannot change. */
    private static final CompletableFuture<Void> NO_CHECKS = CompletableFuture.completedFuture(null);

    /** The least time between two checks of one tenure. */
    static final long CONFIRM_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The lock's name, prefixed: {@code distlock:lock:stock:A}. */
    final String name;
    final BackendLease lease;
    /** The engine's timer: delayed checks, and the watch this tenure is in while held. */
    private final LeaseWatch watch;
    /** Renewed by the backend (watchdog, session); only such a tenure can be passed on. */
    final boolean watchdog;
    /** The configuration lets this tenure be shown held from its lease, without asking the backend. */
    private final boolean provableByLease;
    /** The fencing token of the acquisition, kept by every local holder it is passed to; 0 for none. */
    final long fencingToken;
    final long acquiredAtNanos = System.nanoTime();
    /** Guarded by the key's local permit: how many times the tenure has been passed on. */
    private int handoffs;
    /** Found gone (or unconfirmable) by a check: it is not passed on again. */
    private volatile boolean broken;
    /** When the backend last confirmed the tenure holds the lock; for {@link LeaseWatch}. */
    volatile long lastConfirmedNanos;
    private final AtomicBoolean lossReported = new AtomicBoolean();
    /** Its entry in the {@link LeaseWatch}, removed on release. */
    volatile LeaseWatch.Watched watched;
    /** Who holds the tenure now (its latest local holder), for {@link Inspection}; one write per hold. */
    volatile Hold holder;

    // Guarded by this.
    /** The confirmation the next check will give; {@code null} if nobody waits for one. */
    private CompletableFuture<Boolean> nextConfirmation;
    /** A check is in the backend, or scheduled: the next is sent after it. */
    private boolean checking;
    private long lastCheckNanos;
    /** Completes when every check sent so far has been answered. */
    private CompletableFuture<?> checks = NO_CHECKS;
    private boolean released;

    /** @param provableByLease whether the configuration lets this tenure be shown held from its lease */
    Tenure(LeaseWatch watch, String name, BackendLease lease, boolean provableByLease) {
        this.watch = watch;
        this.name = name;
        this.lease = lease;
        this.watchdog = lease.renewed();
        this.fencingToken = lease.fencingToken();
        this.provableByLease = provableByLease;
    }

    /**
     * Whether the tenure is known held for at least another {@code nanos} without asking the
     * backend: allowed for it, not found lost, and its lease known to last (see
     * {@link BackendLease#knownHeldFor}).
     */
    boolean knownHeldFor(long nanos) {
        return provableByLease && !broken && lease.knownHeldFor(nanos);
    }

    /**
     * Whether the lock is still held now, for a holder that has finished and passed it on:
     * {@code true}, {@code false} when it was lost, or a failure when the backend could not say.
     */
    CompletableFuture<Boolean> confirm() {
        synchronized (this) {
            CompletableFuture<Boolean> confirmation = nextConfirmation;
            if (confirmation == null) {
                confirmation = new CompletableFuture<>();
                nextConfirmation = confirmation;
                if (!checking) {
                    checking = true;
                    scheduleCheck(); // may send it at once, from this thread
                }
            }
            return confirmation;
        }
    }

    /** Guarded by this. */
    private void scheduleCheck() {
        long delay = lastCheckNanos + CONFIRM_INTERVAL_NANOS - System.nanoTime();
        if (lastCheckNanos == 0 || delay <= 0) {
            CompletableFuture.runAsync(this::check, Runnable::run);
        } else {
            watch.later(this::check, delay);
        }
    }

    private void check() {
        CompletableFuture<Boolean> answers;
        CompletableFuture<Boolean> check;
        synchronized (this) {
            answers = nextConfirmation;
            nextConfirmation = null;
            if (answers == null) { // the release took over
                checking = false;
                return;
            }
            lastCheckNanos = System.nanoTime();
            check = held();
            checks = CompletableFuture.allOf(checks, check);
        }
        check.whenComplete((held, error) -> {
            if (error != null || !Boolean.TRUE.equals(held)) {
                markBroken();
            }
            synchronized (this) {
                if (nextConfirmation != null && !released) {
                    scheduleCheck();
                } else {
                    checking = false;
                }
            }
            complete(answers, held, error);
        });
    }

    /** How many times the tenure has been passed on; read by the holder of the key's local permit. */
    int handoffs() {
        return handoffs;
    }

    /**
     * Not to be passed on: the tenure ends with its current hold, given back to the backend at its
     * release, so that another JVM waiting for the lock has its turn next (a combined batch, which
     * serves every call waiting here at once). By the holder of the key's local permit.
     */
    void endWithCurrentHold() {
        handoffs = Integer.MAX_VALUE;
    }

    /** Passed on once more; by the holder of the key's local permit. */
    void countHandoff() {
        handoffs++;
    }

    boolean isBroken() {
        return broken;
    }

    /** Found lost, or could not be confirmed: never passed on again, and checked at the lease watch's next tick. */
    void markBroken() {
        broken = true;
        watch.checkSoon(watched);
    }

    /** @return true the first time only: a loss is told once per tenure */
    boolean markLossReported() {
        return lossReported.compareAndSet(false, true);
    }

    synchronized boolean isReleased() {
        return released;
    }

    /**
     * Releases the lock in the backend, once every check sent before is answered (a release overtaking
     * a check would make the check report a loss that did not happen). Its outcome confirms, or
     * not, the holders still waiting for a confirmation.
     *
     * @return the backend's answer: {@code true} released, {@code false} no longer held (lost); a
     *         failure when the backend could not be told
     */
    CompletableFuture<Boolean> unlock() {
        CompletableFuture<Boolean> answers;
        CompletableFuture<?> before;
        synchronized (this) {
            released = true;
            answers = nextConfirmation;
            nextConfirmation = null;
            before = checks;
        }
        watch.forget(watched);
        CompletableFuture<Boolean> unlocking = before.isDone()
                ? sendUnlock()
                : before.handle((ignored, error) -> null).thenCompose(ignored -> sendUnlock());
        if (answers != null) {
            unlocking.whenComplete((wasHeld, error) -> complete(answers, wasHeld, LockErrors.unwrap(error)));
        }
        return unlocking;
    }

    /** Whether the backend still holds the lease; a failure when it cannot say. */
    CompletableFuture<Boolean> held() {
        try {
            return lease.isHeld();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Boolean> sendUnlock() {
        try {
            return lease.release();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static void complete(CompletableFuture<Boolean> answers, Boolean held, Throwable error) {
        if (error != null) {
            answers.completeExceptionally(error);
        } else {
            answers.complete(held);
        }
    }
}
