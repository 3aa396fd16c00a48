package dev.distlock.internal.core;

import dev.distlock.spi.LockPolicy;

import dev.distlock.LockMode;

import java.util.concurrent.TimeUnit;

/**
 * One lock held by one owner. Nested acquisitions of the same lock by the same owner only count
 * up here; the backend sees one acquisition and one release.
 */
final class Hold {

    final String name;
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
    /** Guarded by the owner: calls that still need the lock. */
    int count = 1;
    /** Guarded by the owner: taken or reentered inside a transaction that has not completed. */
    boolean retained;
    /** This JVM's turn on the key, given back after the release; null for read locks. */
    private volatile LocalQueues.Entry turn;

    Hold(String name, LockPolicy policy, Tenure tenure, boolean handedOver) {
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

    LocalQueues.Entry turn() {
        return turn;
    }

    /** The hold keeps its JVM's turn on the key until it is released. */
    void keepTurn(LocalQueues.Entry entry) {
        turn = entry;
    }

    /** The turn, which the caller now gives on; {@code null} if it was given on already. */
    LocalQueues.Entry takeTurn() {
        LocalQueues.Entry taken = turn;
        turn = null;
        return taken;
    }
}
