package dev.distlock.internal.core;

import java.util.ArrayList;
import java.util.List;

/**
 * What one transaction claims: each hold taken or reentered inside it, until it has committed or
 * rolled back; the locked calls whose own {@code @Transactional} began it, which are done when it
 * is; and what, if anything, doomed it just before its commit. Kept among the transaction's
 * resources ({@link TransactionGuard}), so that a call entered later in the same transaction finds
 * the same {@link #owner} and reenters instead of waiting for the transaction's own lock.
 */
final class TransactionHolds {

    /** The chain whose locked call first met the transaction; calls entered later in it join that chain. */
    final LockOwner owner;
    /**
     * The transaction that was open on the same thread when this one began, suspended under it
     * ({@code REQUIRES_NEW}): a chain begun while this one runs, or under {@code NOT_SUPPORTED},
     * is still that transaction's. {@code null} when there was none.
     */
    final TransactionHolds enclosing;
    /**
     * The thread whose locked work first ran in the transaction: its chain owns the transaction's
     * locks. Work of the same transaction on another thread (resumed there, or propagated to it)
     * is a caller of its own; it reenters nothing of this chain's.
     */
    private final Thread thread = Thread.currentThread();
    /** The flight recorder's event for the transaction; {@code null} when none is recorded. */
    final Object recording = FlightEvents.transactionsRecorded() ? FlightEvents.transactionStarted() : null;

    // Guarded by this.
    private final List<Hold> claimed = new ArrayList<>(2);
    private List<LockedCall> endingWithIt;
    private boolean completed;

    /** Read without the monitor, by lookups from the thread the transaction began on. */
    private volatile boolean open = true;
    /** Guarded by this: what made distlock doom the transaction just before its commit; {@code null} if nothing did. */
    private String lostBeforeCommit;

    TransactionHolds(LockOwner owner, TransactionHolds enclosing) {
        this.owner = owner;
        this.enclosing = enclosing;
    }

    /**
     * The transaction claims each of {@code taken} (once, however often it is reentered in it),
     * until it has completed.
     *
     * @return false when it has completed already (rolled back by its timeout meanwhile): then
     *         nothing is claimed, and the calls' own claims are all there is
     */
    synchronized boolean claim(List<Hold> taken) {
        if (completed) {
            return false;
        }
        for (Hold hold : taken) {
            if (!claims(hold)) {
                claimed.add(hold);
                hold.owner.claimForTransaction(hold);
            }
        }
        return true;
    }

    private boolean claims(Hold hold) {
        for (Hold each : claimed) {
            if (each == hold) {
                return true;
            }
        }
        return false;
    }

    /**
     * The call's own {@code @Transactional} began this transaction: the call is done when it has
     * completed (see {@link LockedCall#transactionCompleted()}).
     */
    synchronized void endsWith(LockedCall call) {
        if (completed) {
            return;
        }
        if (endingWithIt == null) {
            endingWithIt = new ArrayList<>(1);
        }
        endingWithIt.add(call);
    }

    /**
     * The transaction has completed: it claims nothing any more.
     *
     * @return the holds nothing claims now, to be released
     */
    synchronized List<Hold> complete() {
        completed = true;
        open = false;
        List<Hold> unclaimed = new ArrayList<>(claimed.size());
        for (Hold hold : claimed) {
            if (hold.owner.transactionDone(hold)) {
                unclaimed.add(hold);
            }
        }
        claimed.clear();
        return unclaimed;
    }

    /** The calls that are done now that it has completed; call after {@link #complete()}. */
    synchronized List<LockedCall> callsEndingWithIt() {
        return endingWithIt == null ? List.of() : endingWithIt;
    }

    /** Every hold to show still held before the commit: the chain's and those the transaction claims. */
    List<Hold> toVerify() {
        List<Hold> holds = owner.holds();
        synchronized (this) {
            for (Hold hold : claimed) {
                if (hold.owner != owner) {
                    holds.add(hold);
                }
            }
        }
        return holds;
    }

    synchronized int claimCount() {
        return claimed.size();
    }

    /** Whether the chain that owns the transaction's locks runs on the current thread. */
    boolean isOnThisThread() {
        return thread == Thread.currentThread();
    }

    /** Not completed yet. */
    boolean isOpen() {
        return open;
    }

    synchronized void lostBeforeCommit(String problems) {
        lostBeforeCommit = problems;
    }

    /** What doomed the transaction, once; {@code null} if nothing did. */
    synchronized String takeLostBeforeCommit() {
        String problems = lostBeforeCommit;
        if (problems != null) {
            lostBeforeCommit = null;
        }
        return problems;
    }
}
