package dev.distlock.internal.core;

import dev.distlock.DistlockException;
import dev.distlock.LockLostException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One locked call and the holds it claims: released once, when its method has returned (or its
 * stage completed), or — when the method's own {@code @Transactional} began a transaction, the
 * usual {@code @Locked} outside {@code @Transactional} — as soon as that transaction has completed
 * on the call's thread. What is left of the call then is the server's clean-up (returning the
 * connection, the interceptors unwinding): no work of the application's, so the next holder need
 * not wait for it. A transaction that other work in the call began (a {@code @Transactional} bean
 * it calls) does not end the call: the call goes on after it.
 */
final class LockedCall {

    final LockOwner owner;
    /** The locked call this one runs in on the same thread; {@code null} for the chain's first. */
    final LockedCall outer;
    /** What the transaction active when the call was entered claims; {@code null} when there was none. */
    final TransactionHolds entered;
    private final List<Hold> taken;
    private final Releases releases;
    private final ReturnKind kind;
    /** The intercepted invocation's target and method, to know its own {@code @Transactional}; {@code null} for the programmatic API. */
    private final Object target;
    private final Object method;
    /** A call returning a stage is done when the stage completes, whatever its transaction. */
    private final boolean endsWithItsTransaction;
    private final Thread thread = Thread.currentThread();
    /** Transactions begun inside the call and checked before their commit; touched by the call's thread only. */
    private List<TransactionHolds> checked;
    /** Guarded by this: the release, once sent. */
    private CompletableFuture<Void> release;

    LockedCall(LockOwner owner, List<Hold> taken, LockedCall outer, TransactionHolds entered, Releases releases,
               ReturnKind kind, Object target, Object method) {
        this.owner = owner;
        this.taken = taken;
        this.outer = outer;
        this.entered = entered;
        this.releases = releases;
        this.kind = kind;
        this.endsWithItsTransaction = kind == ReturnKind.VALUE;
        this.target = target;
        this.method = method;
    }

    /** Whether {@code target} and {@code method} are this call's own invocation (its own interceptor chain). */
    boolean isInvocation(Object target, Object method) {
        return method != null && this.method == method && this.target == target;
    }

    /** @return whether the call is done when the transaction its own {@code @Transactional} began has completed */
    boolean endsWithItsTransaction() {
        return endsWithItsTransaction;
    }

    /** A transaction begun inside the call is checked before its commit: if distlock dooms it, the call says so. */
    void checks(TransactionHolds transaction) {
        if (checked == null) {
            checked = new ArrayList<>(1);
        } else if (checked.contains(transaction)) {
            return;
        }
        checked.add(transaction);
    }

    /** What doomed a transaction begun inside the call, once; {@code null} if none was. */
    String lostBeforeCommit() {
        if (checked != null) {
            for (TransactionHolds transaction : checked) {
                String problems = transaction.takeLostBeforeCommit();
                if (problems != null) {
                    return problems;
                }
            }
        }
        return null;
    }

    /**
     * Runs the work holding the call's locks, then releases them: when it returns or throws, or,
     * for a stage, when the stage completes. A release that fails becomes the call's failure, or
     * is added to the work's own; a transaction that distlock doomed before its commit is said so.
     */
    Object run(Callable<?> work) throws Exception {
        Object result;
        try {
            result = work.call();
        } catch (Throwable failure) {
            DistlockException releaseFailure = releases.await(release());
            String lostBeforeCommit = lostBeforeCommit();
            if (lostBeforeCommit != null && !(failure instanceof DistlockException)) {
                // The work returned, and its transaction failed to commit because distlock doomed it.
                throw rolledBack(lostBeforeCommit, failure);
            }
            if (releaseFailure != null) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        if (kind == ReturnKind.COMPLETION_STAGE && result != null) {
            return releaseWhenComplete((CompletionStage<?>) result);
        }
        DistlockException releaseFailure = releases.await(release());
        if (releaseFailure != null) {
            throw releaseFailure;
        }
        return result;
    }

    private LockLostException rolledBack(String problems, Throwable transactionFailure) {
        return new LockLostException(taken.get(0).name, "The transaction was rolled back before its commit: " + problems
                + ". Nothing it wrote was committed; the call can be retried.", transactionFailure);
    }

    private CompletableFuture<Object> releaseWhenComplete(CompletionStage<?> stage) {
        CompletableFuture<Object> released = new CompletableFuture<>();
        stage.whenComplete((value, error) -> release().whenComplete((ignored, releaseError) -> {
            DistlockException releaseFailure = LockErrors.failureOf(releaseError);
            if (error != null) {
                Throwable cause = LockErrors.unwrap(error);
                if (releaseFailure != null) {
                    cause.addSuppressed(releaseFailure);
                }
                released.completeExceptionally(cause);
            } else if (releaseFailure != null) {
                released.completeExceptionally(releaseFailure);
            } else {
                released.complete(value);
            }
        }));
        return released;
    }

    /** The call is done with its holds: the first time, each loses this call's claim; later calls get the same outcome. */
    synchronized CompletableFuture<Void> release() {
        if (release == null) {
            release = releases.callDone(taken);
        }
        return release;
    }

    /**
     * The transaction the call's own {@code @Transactional} began has completed: the call is done,
     * if this is its thread. A completion on another thread (a transaction timed out and rolled back
     * by the transaction manager's own thread) leaves the release to the method's return: the
     * method may still be running.
     */
    void transactionCompleted() {
        if (Thread.currentThread() == thread) {
            release();
        }
    }
}
