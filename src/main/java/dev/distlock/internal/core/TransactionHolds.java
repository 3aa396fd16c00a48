package dev.distlock.internal.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Locks and transactions: a transaction active when locks are taken keeps them until it has
 * committed or rolled back; just before it commits, each lock is shown still held — from its lease
 * where {@link dev.distlock.LeaseProof} allows and the lease is known to last, otherwise by asking the backend —
 * and a transaction whose lock is gone (or cannot be shown held) is marked rollback-only, so that
 * nothing done without the lock is committed.
 */
final class TransactionHolds {

    private static final System.Logger LOG = System.getLogger(TransactionHolds.class.getName());

    private final String store;
    private final Releases releases;
    private final LockEvents events;
    private final boolean verifyBeforeCommit;
    private final long answerGraceMillis;
    /** The key under which a transaction keeps its engine's owner. */
    private final Object resourceKey = new Object();

    TransactionHolds(String store, Releases releases, LockEvents events, boolean verifyBeforeCommit, long answerGraceMillis) {
        this.store = store;
        this.releases = releases;
        this.events = events;
        this.verifyBeforeCommit = verifyBeforeCommit;
        this.answerGraceMillis = answerGraceMillis;
    }

    /** The owner that holds locks for this transaction already, or {@code null}. */
    LockOwner ownerOf(TransactionBridge.Scope transaction) {
        return (LockOwner) transaction.getResource(resourceKey);
    }

    /**
     * A transaction was active when the locks were asked for: it keeps them until it has
     * committed or rolled back, and later calls in it reuse the same owner.
     */
    void retainUntilCompletion(TransactionBridge.Scope transaction, LockOwner owner, List<Hold> taken) {
        for (Hold hold : taken) {
            owner.retain(hold);
        }
        if (transaction.getResource(resourceKey) == null) {
            transaction.putResource(resourceKey, owner);
        }
        if (registerOnce(transaction, owner, Registration.Kind.RELEASE)) {
            transaction.afterCompletion(() -> releaseAfterTransaction(owner));
        }
        guard(transaction, owner);
    }

    /**
     * Checks the owner's locks just before {@code transaction} commits (once per owner and
     * transaction), and records the transaction's time when a flight recording asks for it.
     */
    void guard(TransactionBridge.Scope transaction, LockOwner owner) {
        if (verifyBeforeCommit && registerOnce(transaction, owner, Registration.Kind.VERIFY)) {
            transaction.beforeCommit(() -> verifyBeforeCommit(transaction, owner));
        }
        if (FlightEvents.transactionsRecorded() && registerOnce(transaction, owner, Registration.Kind.RECORD)) {
            Object recording = FlightEvents.transactionStarted();
            transaction.afterCompletion(() -> FlightEvents.transactionEnded(recording, owner.holds().size()));
        }
    }

    boolean verifiesBeforeCommit() {
        return verifyBeforeCommit;
    }

    /** @return true the first time an owner registers this kind of callback with the transaction */
    private boolean registerOnce(TransactionBridge.Scope transaction, LockOwner owner, Registration.Kind kind) {
        Registration registration = new Registration(resourceKey, owner.id, kind);
        if (transaction.getResource(registration) != null) {
            return false;
        }
        transaction.putResource(registration, Boolean.TRUE);
        return true;
    }

    /**
     * Just before the commit: shows that the owner still holds its locks, from their leases where
     * allowed, otherwise by asking the backend. If one is gone (or the backend cannot say), the work
     * was not protected to the end, and the transaction is marked rollback-only so that none of it
     * is committed.
     */
    private void verifyBeforeCommit(TransactionBridge.Scope transaction, LockOwner owner) {
        Object recording = FlightEvents.checkStarted();
        List<Hold> retained = owner.holds();
        List<Hold> asked = new ArrayList<>(retained.size());
        List<CompletableFuture<Boolean>> checks = new ArrayList<>(retained.size());
        for (Hold hold : retained) {
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
                    events.lost(hold);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                problems.add("interrupted while checking lock '" + hold.name + "'");
            } catch (ExecutionException | TimeoutException e) {
                problems.add("could not confirm lock '" + hold.name + "' (" + LockErrors.unwrap(e) + ")");
            }
        }
        FlightEvents.checked(recording, retained.size(), asked.isEmpty() ? "lease" : "store", problems.isEmpty());
        if (!problems.isEmpty()) {
            transaction.setRollbackOnly();
            owner.lostBeforeCommit(String.join("; ", problems));
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

    private void releaseAfterTransaction(LockOwner owner) {
        for (Hold hold : owner.transactionCompleted()) {
            releases.release(hold).whenComplete((ignored, error) -> {
                if (error != null) {
                    LOG.log(System.Logger.Level.WARNING, "After transaction completion: " + LockErrors.failureOf(error).getMessage());
                }
            });
        }
    }

    /** Marks, in the transaction's resources, that an owner's check or release is registered with it. */
    private record Registration(Object engine, long ownerId, Kind kind) {
        enum Kind { VERIFY, RELEASE, RECORD }
    }
}
