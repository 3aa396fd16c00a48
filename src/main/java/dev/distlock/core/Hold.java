package dev.distlock.core;

import dev.distlock.LockMode;

/**
 * One lock held by one owner. Nested acquisitions of the same lock by the same owner only count
 * up here; Redis sees one acquisition and one release.
 */
final class Hold {

    final String name;
    /** The locked method (or programmatic call) that took the lock: {@link LockPolicy#site()}. */
    final String site;
    final LockMode mode;
    final Tenure tenure;
    final long acquiredAtNanos = System.nanoTime();
    /** Guarded by the owner: calls that still need the lock. */
    int count = 1;
    /** Guarded by the owner: taken or reentered inside a transaction that has not completed. */
    boolean retained;
    /** This JVM's turn on the key, given back after the release; null for read locks. */
    volatile LocalQueues.Entry turn;

    Hold(String name, String site, LockMode mode, Tenure tenure) {
        this.name = name;
        this.site = site;
        this.mode = mode;
        this.tenure = tenure;
    }
}
