package dev.distlock.testkit.backend;

import dev.distlock.internal.core.TransactionBridge;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A stand-in for a JTA transaction manager: one transaction per thread, begun and completed by
 * the test. Not a stand-in for Redis; the locks are real.
 */
public final class FakeTransactions implements TransactionBridge {

    private final ThreadLocal<Transaction> active = new ThreadLocal<>();

    public Transaction begin() {
        Transaction transaction = new Transaction();
        active.set(transaction);
        return transaction;
    }

    @Override
    public Scope current() {
        return active.get();
    }

    public final class Transaction implements Scope {
        private final Map<Object, Object> resources = new HashMap<>();
        private final List<Runnable> afterCompletion = new ArrayList<>();
        private final List<Runnable> beforeCommit = new ArrayList<>();
        private boolean rollbackOnly;

        @Override
        public Object getResource(Object key) {
            return resources.get(key);
        }

        @Override
        public void putResource(Object key, Object value) {
            resources.put(key, value);
        }

        @Override
        public void afterCompletion(Runnable action) {
            afterCompletion.add(action);
        }

        @Override
        public void beforeCommit(Runnable action) {
            beforeCommit.add(action);
        }

        @Override
        public void setRollbackOnly() {
            rollbackOnly = true;
        }

        /**
         * Runs what was registered for before the commit, then completes.
         *
         * @return true if it committed, false if something marked it rollback-only
         */
        public boolean commit() {
            for (int i = 0; i < beforeCommit.size(); i++) { // what runs may register more, to run after it
                beforeCommit.get(i).run();
            }
            complete();
            return !rollbackOnly;
        }

        public int afterCompletionActions() {
            return afterCompletion.size();
        }

        /** Commits (nothing to commit here) and runs what was registered for after completion. */
        public void complete() {
            active.remove();
            afterCompletion.forEach(Runnable::run);
        }
    }
}
