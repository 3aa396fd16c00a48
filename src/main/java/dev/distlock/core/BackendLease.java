package dev.distlock.core;

import java.util.concurrent.CompletableFuture;

/**
 * One acquisition held in a {@link LockBackend}: what the engine calls a tenure. It may be passed
 * from one local caller to the next (see {@link dev.distlock.LocalHandoff}) when it is
 * {@linkplain #renewed() renewed}; the backend sees one acquisition and one release.
 *
 * <p>Both questions are asynchronous and may be asked from any thread: a lock taken on a request
 * thread is given back by whatever thread completes the work or the transaction.
 */
public interface BackendLease {

    /** The acquisition's fencing token, larger than every earlier one of the lock; 0 when not fenced. */
    long fencingToken();

    /**
     * Kept alive by the backend for as long as it is held (a watchdog, a session), rather than
     * ending at a fixed time: only such a lease may be handed on.
     */
    boolean renewed();

    /** {@code true} while held; {@code false} once lost; fails when the backend cannot say. */
    CompletableFuture<Boolean> isHeld();

    /**
     * Gives the lock back: {@code true}, or {@code false} if it was no longer held (lost: expired,
     * or the store lost it); fails when the backend cannot be told, and the lock then ends with its
     * lease or session. Called once.
     */
    CompletableFuture<Boolean> release();
}
