package dev.distlock;

/**
 * Told what happens to locks, for metrics and alerts. Called on the thread that acquires or
 * releases (for stages, the completing thread); must be quick and must not throw — what it
 * throws is logged and ignored, never passed to the locked method's caller.
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
}
