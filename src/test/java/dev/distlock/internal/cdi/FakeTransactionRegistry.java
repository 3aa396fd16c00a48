package dev.distlock.internal.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An in-memory stand-in for the JTA SPI distlock uses: one transaction at a time, begun and
 * completed by the test. It stubs the transaction manager, not Redis.
 */
@ApplicationScoped
public class FakeTransactionRegistry implements TransactionSynchronizationRegistry {

    private int status = Status.STATUS_NO_TRANSACTION;
    private Object key;
    private final Map<Object, Object> resources = new HashMap<>();
    private final List<Synchronization> synchronizations = new ArrayList<>();
    private int lastOutcome = Status.STATUS_NO_TRANSACTION;

    synchronized void begin() {
        if (status != Status.STATUS_NO_TRANSACTION) {
            throw new IllegalStateException("a transaction is active already");
        }
        status = Status.STATUS_ACTIVE;
        key = new Object();
    }

    /**
     * Ends the transaction as a transaction manager would: before completion (for a commit),
     * outcome, after completion. A commit of a transaction marked rollback-only rolls back.
     *
     * @return the outcome
     */
    int complete(int requested) {
        List<Synchronization> registered;
        synchronized (this) {
            registered = List.copyOf(synchronizations);
        }
        if (requested == Status.STATUS_COMMITTED) {
            registered.forEach(Synchronization::beforeCompletion);
        }
        int outcome;
        synchronized (this) {
            outcome = status == Status.STATUS_MARKED_ROLLBACK ? Status.STATUS_ROLLEDBACK : requested;
            status = outcome;
            lastOutcome = outcome;
        }
        registered.forEach(synchronization -> synchronization.afterCompletion(outcome));
        reset();
        return outcome;
    }

    synchronized void reset() {
        status = Status.STATUS_NO_TRANSACTION;
        key = null;
        resources.clear();
        synchronizations.clear();
    }

    /** How the last completed transaction ended. */
    synchronized int lastOutcome() {
        return lastOutcome;
    }

    synchronized List<Synchronization> synchronizations() {
        return List.copyOf(synchronizations);
    }

    @Override
    public synchronized Object getTransactionKey() {
        return key;
    }

    @Override
    public synchronized void putResource(Object resourceKey, Object value) {
        requireActive();
        resources.put(resourceKey, value);
    }

    @Override
    public synchronized Object getResource(Object resourceKey) {
        requireActive();
        return resources.get(resourceKey);
    }

    @Override
    public synchronized void registerInterposedSynchronization(Synchronization synchronization) {
        requireActive();
        synchronizations.add(synchronization);
    }

    @Override
    public synchronized int getTransactionStatus() {
        return status;
    }

    @Override
    public synchronized void setRollbackOnly() {
        requireActive();
        status = Status.STATUS_MARKED_ROLLBACK;
    }

    @Override
    public synchronized boolean getRollbackOnly() {
        requireActive();
        return status == Status.STATUS_MARKED_ROLLBACK;
    }

    private void requireActive() {
        if (status != Status.STATUS_ACTIVE && status != Status.STATUS_MARKED_ROLLBACK) {
            throw new IllegalStateException("no transaction is active");
        }
    }
}
