package dev.distlock.internal.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A transaction manager reduced to what the engine's bookkeeping meets: transactions bound to a
 * thread, suspended and resumed (on the same thread or another), resources kept with each, and
 * synchronizations run by the thread that completes it — those registered just before the commit
 * first, then, once the outcome is final, those after completion. What a JTA transaction manager
 * adds (resources, two phases, timeouts) is not the bookkeeping's business; those are tested on
 * Narayana in the library's tests.
 */
final class ModelTransactions implements TransactionBridge {

    private final ThreadLocal<Transaction> bound = new ThreadLocal<>();

    Transaction begin() {
        Transaction transaction = new Transaction();
        bound.set(transaction);
        return transaction;
    }

    Transaction suspend() {
        Transaction transaction = bound.get();
        bound.remove();
        return transaction;
    }

    void resume(Transaction transaction) {
        bound.set(transaction);
    }

    @Override
    public Scope current() {
        Transaction transaction = bound.get();
        return transaction == null || transaction.isCompleted() ? null : transaction;
    }

    /** One transaction; its monitor guards its state. */
    static final class Transaction implements Scope {
        private final Map<Object, Object> resources = new HashMap<>();
        private final List<Runnable> beforeCommit = new ArrayList<>();
        private final List<Runnable> afterCompletion = new ArrayList<>();
        private volatile boolean completed;

        @Override
        public synchronized Object getResource(Object key) {
            return resources.get(key);
        }

        @Override
        public synchronized void putResource(Object key, Object value) {
            resources.put(key, value);
        }

        @Override
        public synchronized void afterCompletion(Runnable action) {
            if (completed) {
                throw new IllegalStateException("completed");
            }
            afterCompletion.add(action);
        }

        @Override
        public synchronized void beforeCommit(Runnable action) {
            if (completed) {
                throw new IllegalStateException("completed");
            }
            beforeCommit.add(action);
        }

        @Override
        public void setRollbackOnly() {
            // the outcome is not what the model checks
        }

        /** Whether the outcome is final: set before any after-completion synchronization runs. */
        boolean isCompleted() {
            return completed;
        }

        /** Completes it on this thread, running the synchronizations as a transaction manager does. */
        void commit() {
            for (int i = 0; ; i++) {
                Runnable next;
                synchronized (this) {
                    if (i == beforeCommit.size()) {
                        break;
                    }
                    next = beforeCommit.get(i);
                }
                next.run();
            }
            List<Runnable> after;
            synchronized (this) {
                completed = true;
                after = List.copyOf(afterCompletion);
            }
            after.forEach(Runnable::run);
        }
    }
}
