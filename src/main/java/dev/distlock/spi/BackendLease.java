package dev.distlock.spi;

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
     * Whether the store is known, without asking it again, to keep this lease for at least another
     * {@code nanos}: from what the store itself answered (the lease it granted or last confirmed,
     * counted from when the question went out, less the clock drift allowed for), and only while
     * nothing since suggests the store may have lost what it was told (for Redis: no connection
     * lost). It cannot see the lock taken away by hand or evicted; the engine uses it only where a
     * caller accepts that. {@code false} when the backend keeps no such knowledge.
     */
    default boolean knownHeldFor(long nanos) {
        return false;
    }

    /**
     * Gives the lock back: {@code true}, or {@code false} if it was no longer held (lost: expired,
     * or the store lost it); fails when the backend cannot be told, and the lock then ends with its
     * lease or session. Called once.
     */
    CompletableFuture<Boolean> release();
}
