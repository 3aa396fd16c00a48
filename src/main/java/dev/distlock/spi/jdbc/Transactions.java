package dev.distlock.spi.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One committed transaction on a connection of its own (every wait on it bounded: {@link
 * BoundedConnection}), run again (after a random pause) when the
 * database rolls it back for a deadlock, a serialization failure or a key another transaction
 * inserted meanwhile. Shared by
 * the lock tables and the segment id table. Internal.
 */
public final class Transactions {

    private static final int MAX_ATTEMPTS = 8;
    /** The bound on every wait where the caller names none: a dead socket ends a transaction after it. */
    public static final long DEFAULT_BOUND_MILLIS = 30_000;

    /** One transaction's statements; may run more than once. */
    @FunctionalInterface
    public interface Work<T> {
        T in(Connection connection) throws SQLException;
    }

    private Transactions() {
    }

    /**
     * Runs {@code work} in a transaction on a new connection from {@code dataSource}, on the calling
     * thread, with every wait on the connection bounded by {@value #DEFAULT_BOUND_MILLIS} ms.
     */
    public static <T> T run(DataSource dataSource, Work<T> work) throws SQLException {
        return run(dataSource, DEFAULT_BOUND_MILLIS, work);
    }

    /** Runs {@code work} as {@link #run(DataSource, Work)} does, each wait bounded by {@code boundMillis}. */
    public static <T> T run(DataSource dataSource, long boundMillis, Work<T> work) throws SQLException {
        try (BoundedConnection bounded = BoundedConnection.open(dataSource, boundMillis)) {
            return run(bounded.connection(), work);
        }
    }

    /** Runs {@code work} in a transaction on {@code connection}, on the calling thread. */
    public static <T> T run(Connection connection, Work<T> work) throws SQLException {
        return run(connection, false, work);
    }

    /**
     * Runs {@code work} on {@code connection} in auto-commit mode, on the calling thread: each of its
     * statements is committed as it runs, in one round trip and with no transaction left open between
     * two statements. For work that is one statement, or statements each safe on its own; run again
     * after the same pause as a transaction when the database rolled a statement back for a deadlock.
     */
    public static <T> T runInAutoCommit(Connection connection, Work<T> work) throws SQLException {
        return run(connection, true, work);
    }

    private static <T> T run(Connection connection, boolean autoCommit, Work<T> work) throws SQLException {
        boolean autoCommitBefore = connection.getAutoCommit();
        connection.setAutoCommit(autoCommit);
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    T result = work.in(connection);
                    if (!autoCommit) {
                        connection.commit();
                    }
                    return result;
                } catch (SQLException e) {
                    if (!autoCommit) {
                        rollbackQuietly(connection, e);
                    }
                    if (attempt < MAX_ATTEMPTS && retryable(e) && pauseBeforeAttempt(attempt + 1)) {
                        continue;
                    }
                    throw e;
                } catch (RuntimeException e) {
                    if (!autoCommit) {
                        rollbackQuietly(connection, e);
                    }
                    throw e;
                }
            }
        } finally {
            connection.setAutoCommit(autoCommitBefore);
        }
    }

    /**
     * Deadlock, serialization failure, or a key another transaction inserted (InnoDB answers two
     * nodes creating one row at once with a deadlock, PostgreSQL with a duplicate key): the database
     * rolled the transaction back, and running it again is safe.
     */
    public static boolean retryable(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLTransactionRollbackException
                || (state != null && (state.startsWith("40") || state.startsWith("23")));
    }

    /**
     * A random pause, longer after each attempt (up to {@code 2^attempt} ms), before the transaction
     * runs again: transactions that deadlocked together and ran again at once would meet in the
     * same order and deadlock again (four segment stores creating one row did, on MariaDB, five
     * times in a row).
     *
     * @return {@code false} when interrupted (the interrupt is kept, and the failure thrown)
     */
    private static boolean pauseBeforeAttempt(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 1L << Math.min(attempt, 10)));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void rollbackQuietly(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
