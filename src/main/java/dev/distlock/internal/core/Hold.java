package dev.distlock.internal.core;

import dev.distlock.spi.LockPolicy;

import dev.distlock.LockMode;

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
    final long acquiredAtNanos = System.nanoTime();
    /** This hold's flight recorder event, ended when it is given on; {@code null} when none is recorded. */
    final Object recording = FlightEvents.holdStarted();
    /** Guarded by the owner: calls that still need the lock. */
    int count = 1;
    /** Guarded by the owner: taken or reentered inside a transaction that has not completed. */
    boolean retained;
    /** This JVM's turn on the key, given back after the release; null for read locks. */
    private volatile LocalQueues.Entry turn;

    Hold(String name, String site, LockMode mode, Tenure tenure) {
        this.name = name;
        this.site = site;
        this.mode = mode;
        this.tenure = tenure;
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
