package dev.distlock;

/**
 * Told what happens to locks, for metrics and alerts. Called on the thread that acquires or
 * releases (for stages, the completing thread); must be quick and must not throw — what it
 * throws is logged and ignored, never passed to the locked method's caller.
 *
 * <p>distlock calls the methods that name the {@code site}: the locked method that took the lock,
 * as {@code Shop.order(String,int)}, or {@code DistributedLocks.exclusive(...)} (read, write) for
 * the programmatic API — a constant per call site, so unlike the key it can label a metric without
 * growing its series without bound. By default they pass the event on without the site, so a
 * listener implements whichever of the two it needs.
 */
public interface LockListener {

    LockListener NONE = new LockListener() {
    };

    /** A lock was taken from Redis after waiting {@code waitNanos}. Reentries are not reported. */
    default void acquired(String key, LockMode mode, long waitNanos) {
    }

    /** A lock was given back to Redis after being held {@code heldNanos}. */
    default void released(String key, LockMode mode, long heldNanos) {
    }

    /** A lock could not be had within the wait time. */
    default void timedOut(String key, LockMode mode, long waitNanos) {
    }

    /** A lock was found gone at release: its lease expired or Redis lost it while the method ran. */
    default void lost(String key, LockMode mode) {
    }

    /** {@link #acquired(String, LockMode, long)}, taken for {@code site}. */
    default void acquired(String key, String site, LockMode mode, long waitNanos) {
        acquired(key, mode, waitNanos);
    }

    /** {@link #released(String, LockMode, long)}; {@code site} is where the lock was taken. */
    default void released(String key, String site, LockMode mode, long heldNanos) {
        released(key, mode, heldNanos);
    }

    /** {@link #timedOut(String, LockMode, long)}, waited for by {@code site}. */
    default void timedOut(String key, String site, LockMode mode, long waitNanos) {
        timedOut(key, mode, waitNanos);
    }

    /** {@link #lost(String, LockMode)}; {@code site} is where the lock was taken. */
    default void lost(String key, String site, LockMode mode) {
        lost(key, mode);
    }
}
