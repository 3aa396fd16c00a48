package dev.distlock.internal.core;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.function.Supplier;

/**
 * Lets locks taken inside a JTA transaction be released after it completes, through the
 * {@link TransactionSynchronizationRegistry}. A transaction marked rollback-only is still one: a
 * locked call made in it (a catch block's, after another failed) joins its chain rather than
 * waiting for the locks it holds. Where there is no registry (Java SE, tests), there is no
 * transaction and locks are released when the method returns.
 */
public final class JtaTransactions implements TransactionBridge {

    static final String REGISTRY_JNDI_NAME = "java:comp/TransactionSynchronizationRegistry";

    private final Supplier<TransactionSynchronizationRegistry> registry;

    public JtaTransactions(Supplier<TransactionSynchronizationRegistry> registry) {
        this.registry = registry;
    }

    /** Looks the registry up in JNDI once; {@code null} where JNDI or JTA is not there. */
    public static TransactionSynchronizationRegistry lookup() {
        try {
            return (TransactionSynchronizationRegistry) new InitialContext().lookup(REGISTRY_JNDI_NAME);
        } catch (NamingException | RuntimeException | LinkageError absent) {
            return null;
        }
    }

    @Override
    public Scope current() {
        TransactionSynchronizationRegistry tsr = registry.get();
        if (tsr == null) {
            return null;
        }
        int status = tsr.getTransactionStatus();
        if (status != Status.STATUS_ACTIVE && status != Status.STATUS_MARKED_ROLLBACK) {
            // No transaction, or one completing or completed (rolled back by its timeout): none to join.
            return null;
        }
        return new Scope() {
            @Override
            public Object getResource(Object key) {
                return tsr.getResource(key);
            }

            @Override
            public void putResource(Object key, Object value) {
                tsr.putResource(key, value);
            }

            @Override
            public void beforeCommit(Runnable action) {
                tsr.registerInterposedSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                        action.run();
                    }

                    @Override
                    public void afterCompletion(int outcome) {
                        // nothing to do
                    }
                });
            }

            @Override
            public void setRollbackOnly() {
                tsr.setRollbackOnly();
            }

            @Override
            public void afterCompletion(Runnable action) {
                tsr.registerInterposedSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                        // locks are released after the outcome is final, not before
                    }

                    @Override
                    public void afterCompletion(int outcome) {
                        action.run();
                    }
                });
            }
        };
    }
}
