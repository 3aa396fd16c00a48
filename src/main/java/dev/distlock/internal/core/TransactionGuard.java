package dev.distlock.internal.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Locks and transactions. Each transaction that locked work runs in gets its
 * {@link TransactionHolds}, kept among its resources: the holds taken in it stay until it has
 * committed or rolled back. Just before it commits — after every synchronization registered before
 * it began to complete, the persistence provider's flush among them — each lock of its chain is
 * shown still held, from its lease where {@link dev.distlock.LeaseProof} allows and the lease is
 * known to last, otherwise by asking the backend; a transaction whose lock is gone (or cannot be
 * shown held) is marked rollback-only, so that nothing done without the lock is committed.
 */
final class TransactionGuard {

    private static final System.Logger LOG = System.getLogger(TransactionGuard.class.getName());

    private final String store;
    private final Releases releases;
    private final LockEvents events;
    private final boolean verifyBeforeCommit;
    private final long answerGraceMillis;
    /** The key under which a transaction keeps this engine's {@link TransactionHolds}. */
    private final Object resourceKey = new Object();

    TransactionGuard(String store, Releases releases, LockEvents events, boolean verifyBeforeCommit, long answerGraceMillis) {
        this.store = store;
        this.releases = releases;
        this.events = events;
        this.verifyBeforeCommit = verifyBeforeCommit;
        this.answerGraceMillis = answerGraceMillis;
    }

    /** What the transaction claims already; {@code null} before locked work first ran in it. */
    TransactionHolds holdsOf(TransactionBridge.Scope transaction) {
        return (TransactionHolds) transaction.getResource(resourceKey);
    }

    /**
     * Locked work runs in {@code transaction}: its holds, made on first use, with the release after
     * completion and the check before commit registered.
     *
     * @param enclosing what the transaction open on this thread before it claims, if any
     * @return {@code null} when the transaction takes no synchronization any more: it was marked
     *         rollback-only before any locked work ran in it, so nothing of it can commit, and the
     *         calls' own claims are all there is
     */
    TransactionHolds join(TransactionBridge.Scope transaction, LockOwner owner, TransactionHolds enclosing) {
        TransactionHolds holds = holdsOf(transaction);
        if (holds != null) {
            return holds;
        }
        TransactionHolds joined = new TransactionHolds(owner, enclosing);
        try {
            transaction.afterCompletion(() -> completed(joined));
        } catch (IllegalStateException refused) {
            return null;
        }
        if (verifyBeforeCommit) {
            transaction.beforeCommit(() -> verifyLast(transaction, joined));
        }
        transaction.putResource(resourceKey, joined);
        return joined;
    }

    boolean verifiesBeforeCommit() {
        return verifyBeforeCommit;
    }

    /**
     * The transaction begins to complete: the check goes to the end of the line, after whatever was
     * registered since this guard was (a persistence provider joins the transaction when the entity
     * manager is first used, after the lock was taken, and sends its SQL in its own
     * {@code beforeCompletion}). Where the transaction manager takes no synchronization now, it runs here.
     */
    private void verifyLast(TransactionBridge.Scope transaction, TransactionHolds holds) {
        try {
            transaction.beforeCommit(() -> verify(transaction, holds));
        } catch (RuntimeException refused) {
            verify(transaction, holds);
        }
    }

    /**
     * Just before the commit: shows that the chain still holds its locks, from their leases where
     * allowed, otherwise by asking the backend. If one is gone (or the backend cannot say), the work
     * was not protected to the end, and the transaction is marked rollback-only so that none of it
     * is committed.
     */
    private void verify(TransactionBridge.Scope transaction, TransactionHolds holds) {
        Object recording = FlightEvents.checkStarted();
        List<Hold> held = holds.toVerify();
        List<Hold> asked = new ArrayList<>(held.size());
        List<CompletableFuture<Boolean>> checks = new ArrayList<>(held.size());
        for (Hold hold : held) {
            if (!provenByLease(hold)) {
                asked.add(hold);
                checks.add(hold.tenure.held());
            }
        }
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < asked.size(); i++) {
            Hold hold = asked.get(i);
            try {
                if (!checks.get(i).get(answerGraceMillis, TimeUnit.MILLISECONDS)) {
                    problems.add("lock '" + hold.name + "' was lost (its lease expired or " + store + " lost it)");
                    hold.tenure.markBroken(); // never handed on to a caller here
                    events.lost(hold);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                problems.add("interrupted while checking lock '" + hold.name + "'");
            } catch (ExecutionException | TimeoutException e) {
                problems.add("could not confirm lock '" + hold.name + "' (" + LockErrors.unwrap(e) + ")");
            }
        }
        FlightEvents.checked(recording, held.size(), asked.isEmpty() ? "lease" : "store", problems.isEmpty());
        if (!problems.isEmpty()) {
            transaction.setRollbackOnly();
            holds.lostBeforeCommit(String.join("; ", problems));
            LOG.log(System.Logger.Level.WARNING, "Transaction marked rollback-only before commit: " + String.join("; ", problems)
                    + ". The work done under the lock is not committed.");
        }
    }

    /**
     * The hold may be shown held from its lease, and the lease is known to last at least as long as
     * the backend may take to answer the question it replaces.
     */
    private boolean provenByLease(Hold hold) {
        return hold.tenure.knownHeldFor(TimeUnit.MILLISECONDS.toNanos(answerGraceMillis));
    }

    /** Committed or rolled back, on whatever thread the transaction manager completes it. */
    private void completed(TransactionHolds holds) {
        int claimed = holds.claimCount();
        for (Hold hold : holds.complete()) {
            releases.release(hold).whenComplete((ignored, error) -> {
                if (error != null) {
                    LOG.log(System.Logger.Level.WARNING, "After transaction completion: " + LockErrors.failureOf(error).getMessage());
                }
            });
        }
        for (LockedCall call : holds.callsEndingWithIt()) {
            call.transactionCompleted();
        }
        if (holds.recording != null) {
            FlightEvents.transactionEnded(holds.recording, claimed);
        }
    }
}
