package dev.distlock.internal.core;

import dev.distlock.spi.LockPolicy;

import dev.distlock.LockMode;

import java.util.concurrent.TimeUnit;

/**
 * One lock held by one {@link LockOwner}. It is kept while anything claims it: each locked call
 * that took or reentered it, until that call is done ({@link LockedCall}), and each transaction it
 * was taken or reentered in, until that transaction has completed ({@link TransactionHolds}). When
 * the last claim goes it is released, once; the backend sees one acquisition and one release
 * however often the owner reentered it.
 */
final class Hold {

    final String name;
    /** Whose hold it is; its monitor guards {@link #calls} and {@link #transactions}. */
    final LockOwner owner;
    /** The locked method (or programmatic call) that took the lock: {@link LockPolicy#site()}. */
    final String site;
    final LockMode mode;
    final Tenure tenure;
    /** Handed on by the previous holder in this JVM rather than taken from the backend. */
    final boolean handedOver;
    final long acquiredAtNanos = System.nanoTime();
    /** {@link LockPolicy#holdAtLeastMillis()} in nanoseconds: the release waits until this long after acquiring. */
    final long holdAtLeastNanos;
    /** This hold's flight recorder event, ended when it is given on; {@code null} when none is recorded. */
    final Object recording = FlightEvents.holdStarted();
    /** Guarded by the owner: locked calls that took or reentered it and are not done. */
    int calls = 1;
    /** Guarded by the owner: transactions it was taken or reentered in that have not completed. */
    int transactions;
    /** The key's local queue, whose turn this hold has until it is released; null for read locks. */
    private volatile LocalQueues.Queue queue;

    Hold(LockOwner owner, String name, LockPolicy policy, Tenure tenure, boolean handedOver) {
        this.owner = owner;
        this.name = name;
        this.handedOver = handedOver;
        this.site = policy.site();
        this.mode = policy.mode();
        this.tenure = tenure;
        this.holdAtLeastNanos = TimeUnit.MILLISECONDS.toNanos(policy.holdAtLeastMillis());
        tenure.holder = this;
    }

    /** How long the lock must still stay taken for its minimum hold; {@code <= 0} when it may go now. */
    long minimumHoldLeftNanos() {
        return holdAtLeastNanos == 0 ? 0 : acquiredAtNanos + holdAtLeastNanos - System.nanoTime();
    }

    /** Nothing claims it any more: no call needs it, no transaction it was taken in is still running. Guarded by the owner. */
    boolean unclaimed() {
        return calls == 0 && transactions == 0;
    }

    /** No call needs it any more; read without the owner's monitor, for {@link Inspection} only. */
    boolean finished() {
        return calls == 0;
    }

    /** The key's local queue, whose turn this hold has; {@code null} once given on. */
    LocalQueues.Queue queue() {
        return queue;
    }

    /** The hold keeps the turn in its key's local queue until it is released. */
    void keepTurnIn(LocalQueues.Queue queue) {
        this.queue = queue;
    }

    /** The queue whose turn the caller now gives on; {@code null} if it was given on already. */
    LocalQueues.Queue takeTurn() {
        LocalQueues.Queue taken = queue;
        queue = null;
        return taken;
    }
}
