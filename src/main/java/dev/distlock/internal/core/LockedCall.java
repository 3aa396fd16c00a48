package dev.distlock.internal.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One locked call that returns a value, and the holds it took: released once, either when its
 * method returns or — when the method began a transaction of its own (the usual
 * {@code @Locked} outside {@code @Transactional}) — as soon as that transaction has completed, on
 * the call's own thread. What is left of the call after the completion is the server's clean-up
 * (returning the connection, the interceptors unwinding): no work of the application's, so the
 * next holder need not wait for it.
 */
final class LockedCall {

    private final LockOwner owner;
    private final List<Hold> taken;
    private final Releases releases;
    private final Thread thread = Thread.currentThread();
    /** Guarded by this: the release, once sent. */
    private CompletableFuture<Void> release;

    LockedCall(LockOwner owner, List<Hold> taken, Releases releases) {
        this.owner = owner;
        this.taken = taken;
        this.releases = releases;
    }

    /** Releases the call's holds the first time; later calls get the same outcome. */
    synchronized CompletableFuture<Void> release() {
        if (release == null) {
            release = releases.releaseAll(owner, taken);
        }
        return release;
    }

    /**
     * The transaction begun inside the call has completed: releases now if this is the call's
     * thread. A completion on another thread (a transaction timed out and rolled back by the
     * transaction manager's own thread) leaves the release to the method's return: the method may
     * still be running.
     */
    void transactionCompleted() {
        if (Thread.currentThread() == thread) {
            release();
        }
    }
}
