package dev.distlock.internal.core;

import java.lang.ref.WeakReference;
import java.util.List;

/**
 * Each thread's chain, and who owns a new call's locks. A locked call belongs to the chain it is
 * nested in on its thread; else to the chain of the transaction it runs in, if that transaction's
 * locks were taken on this thread; else to the chain of a transaction suspended beneath it on this
 * thread's call stack ({@code NOT_SUPPORTED}, {@code REQUIRES_NEW}); else it begins a chain of its
 * own. Ownership follows the call stack: what a call or a {@code @Transactional} invocation notes on
 * its thread, it puts back as it returns, so that a transaction its method left suspended (an
 * asynchronous {@code @Transactional}) or that went on on another thread makes no later caller on
 * this thread its owner.
 */
final class Chains {

    /**
     * Per thread: in slot {@link #CALL} the innermost locked call running on it, and in slot
     * {@link #OPEN} a weak reference to the holds of the innermost transaction that locked work ran
     * in here and that is active or suspended beneath the current invocation. A slot that stays,
     * rather than a set and a remove per call, which rework the thread's map of locals each time;
     * an {@code Object[]}, emptied as each call returns, and weak, so that a pooled server thread
     * never keeps an application class alive.
     */
    private final ThreadLocal<Object[]> slots = ThreadLocal.withInitial(() -> new Object[2]);
    private static final int CALL = 0;
    private static final int OPEN = 1;

    private final TransactionBridge transactions;
    private final TransactionGuard transactionGuard;
    private final Ownership ownership;

    Chains(TransactionBridge transactions, TransactionGuard transactionGuard, Ownership ownership) {
        this.transactions = transactions;
        this.transactionGuard = transactionGuard;
        this.ownership = ownership;
    }

    /**
     * A locked call begins on this thread: who owns it, and what its thread noted before it.
     * Paired with {@link #returned(Entry)}.
     */
    Entry enter() {
        TransactionBridge.Scope transaction = transactions.current();
        Object[] slot = slots.get();
        LockedCall outer = (LockedCall) slot[CALL];
        TransactionHolds inTransaction = transaction == null ? null : transactionGuard.holdsOf(transaction);
        LockOwner owner;
        if (outer != null) {
            owner = outer.owner;
        } else if (inTransaction != null && ownedHere(inTransaction)) {
            owner = inTransaction.owner;
        } else {
            TransactionHolds suspended = openOnThisThread(slot);
            owner = suspended != null ? suspended.owner : new LockOwner();
        }
        return new Entry(slot, slot[OPEN], outer, transaction, inTransaction, owner);
    }

    /**
     * The call's locks are taken: the transaction it runs in claims them until it has completed.
     *
     * @return what that transaction claims, or {@code null} when the call runs in none, or in one
     *         that takes no claims any more (completed, or doomed before any lock was taken in it)
     */
    TransactionHolds claim(Entry entry, List<Hold> taken) {
        if (entry.transaction == null) {
            return null;
        }
        TransactionHolds holds = entry.inTransaction;
        if (holds == null) {
            holds = join(entry.transaction, entry.owner, entry.slot);
        }
        return holds != null && holds.claim(taken) ? holds : null;
    }

    /** The call runs: calls nested in it on this thread are its chain's. */
    void running(Entry entry, LockedCall call) {
        entry.slot[CALL] = call;
    }

    /** The call has returned (its locks may stay with its stage or transaction). */
    void returned(Entry entry) {
        entry.slot[CALL] = entry.outer;
        leaveOpen(entry.slot, entry.openBefore);
    }

    /** The locked call running on this thread now; {@code null} when none. */
    LockedCall current() {
        return (LockedCall) slots.get()[CALL];
    }

    /** See {@link LockExecutor#transactionFrameEntered(boolean)}. */
    Object frameEntered(boolean suspends) {
        Object[] slot = slots.get();
        Object before = slot[OPEN];
        if (suspends) {
            TransactionHolds callers = holdsOf(transactions.current());
            if (callers != null && ownedHere(callers) && callers != holdsIn(before)) {
                slot[OPEN] = new WeakReference<>(callers);
            }
        }
        return before;
    }

    /** See {@link LockExecutor#transactionFrameLeft(Object)}. */
    void frameLeft(Object entered) {
        leaveOpen(slots.get(), entered);
    }

    /** See {@link LockExecutor#guardTransaction(Object, Object)}. */
    void guardTransaction(Object target, Object method) {
        Object[] slot = slots.get();
        LockedCall call = (LockedCall) slot[CALL];
        if (call == null) {
            return; // no locked work of this engine runs on this thread
        }
        TransactionBridge.Scope transaction = transactions.current();
        if (transaction == null) {
            return;
        }
        TransactionHolds holds = transactionGuard.holdsOf(transaction);
        if (holds != null && holds == call.entered) {
            return; // the transaction the call was entered in: it claims the call's holds already
        }
        if (holds == null) {
            holds = join(transaction, call.owner, slot);
            if (holds == null) {
                return;
            }
        }
        call.checks(holds);
        if (call.endsWithItsTransaction() && call.isInvocation(target, method)) {
            holds.endsWith(call);
        }
    }

    private boolean ownedHere(TransactionHolds holds) {
        return ownership == Ownership.THREAD_WIDE || holds.isOnThisThread();
    }

    /** The transaction's holds, made on first use; noted as open on this thread, for chains begun while it is suspended. */
    private TransactionHolds join(TransactionBridge.Scope transaction, LockOwner owner, Object[] slot) {
        TransactionHolds joined = transactionGuard.join(transaction, owner, openOnThisThread(slot));
        if (joined != null && ownedHere(joined)) {
            slot[OPEN] = new WeakReference<>(joined);
        }
        return joined;
    }

    /**
     * A locked call or a {@code @Transactional} invocation returns: the transaction noted as open
     * on this thread is again what it was when it began, unless the one noted now is still the
     * thread's current transaction (one the caller began, which locked work joined). A transaction
     * that the invocation left suspended — its method returned a stage, and the transaction
     * manager commits when the stage completes — is nobody's here any more.
     */
    private void leaveOpen(Object[] slot, Object before) {
        Object now = slot[OPEN];
        if (now == before || ownership == Ownership.THREAD_WIDE) {
            return;
        }
        TransactionHolds left = holdsIn(now);
        if (left != null && left.isOpen() && left == holdsOf(transactions.current())) {
            return;
        }
        slot[OPEN] = before;
    }

    /** The innermost transaction noted open on this thread that has not completed; {@code null} when none. */
    private static TransactionHolds openOnThisThread(Object[] slot) {
        TransactionHolds holds = holdsIn(slot[OPEN]);
        while (holds != null && !holds.isOpen()) {
            holds = holds.enclosing;
        }
        return holds;
    }

    @SuppressWarnings("unchecked")
    private static TransactionHolds holdsIn(Object reference) {
        return reference == null ? null : ((WeakReference<TransactionHolds>) reference).get();
    }

    private TransactionHolds holdsOf(TransactionBridge.Scope transaction) {
        return transaction == null ? null : transactionGuard.holdsOf(transaction);
    }

    /**
     * Where a locked call stands as it begins on its thread.
     *
     * @param openBefore    what the thread noted as open before it, put back as it returns
     * @param outer         the locked call it is nested in on its thread; {@code null} for a chain's first
     * @param transaction   the transaction active as it began; {@code null} when none
     * @param inTransaction what that transaction claims already; {@code null} before locked work ran in it
     * @param owner         whose its locks are
     */
    record Entry(Object[] slot, Object openBefore, LockedCall outer, TransactionBridge.Scope transaction,
                 TransactionHolds inTransaction, LockOwner owner) {
    }

    /**
     * Whose a transaction's locks are. Every engine follows {@linkplain #CALL_STACK the call
     * stack}; the other is a bug planted on purpose, chosen only by the model check's twin
     * ({@code TransactionModelCheckTest} in {@code model-check/}), which shows that the check finds it.
     */
    enum Ownership {
        /** A transaction's locks are its chain's, on the thread they were taken on, while it is on that thread's call stack. */
        CALL_STACK,
        /**
         * The planted bug, what distlock did before: a transaction's locks are its chain's on every
         * thread, and a transaction once noted open on a thread stays so until it completes.
         */
        THREAD_WIDE
    }
}
