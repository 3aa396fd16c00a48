package dev.distlock.internal.core;

/**
 * What the engine needs from a transaction manager: whether a transaction is active, a place to
 * keep the transaction's lock owner, and a callback once it has committed or rolled back.
 */
public interface TransactionBridge {

    /** For code that runs without transactions. */
    TransactionBridge NONE = () -> null;

    /** The active transaction, or {@code null} when there is none. */
    Scope current();

    /** One active transaction. */
    interface Scope {

        Object getResource(Object key);

        void putResource(Object key, Object value);

        /** Runs {@code action} after the transaction has committed or rolled back. */
        void afterCompletion(Runnable action);

        /**
         * Runs {@code action} just before the transaction commits; it may call
         * {@link #setRollbackOnly()}. Without support for this, the action never runs.
         */
        default void beforeCommit(Runnable action) {
        }

        /** Dooms the transaction: it can only roll back. */
        default void setRollbackOnly() {
            throw new UnsupportedOperationException("this transaction bridge cannot mark a transaction rollback-only");
        }
    }
}
