package dev.distlock.core;

import org.redisson.api.RLock;

/**
 * One lock held in Redis by one owner. Nested acquisitions of the same lock by the same owner
 * only count up here; Redis sees one acquisition and one release.
 */
final class Hold {

    final String name;
    final LockMode mode;
    final RLock lock;
    final long acquiredAtNanos = System.nanoTime();
    /** Guarded by the owner: calls that still need the lock. */
    int count = 1;
    /** Guarded by the owner: taken or reentered inside a transaction that has not completed. */
    boolean retained;
    /** This JVM's turn on the key, given back after the Redis release; null for read locks. */
    volatile LocalQueues.Entry turn;

    Hold(String name, LockMode mode, RLock lock) {
        this.name = name;
        this.mode = mode;
        this.lock = lock;
    }
}
