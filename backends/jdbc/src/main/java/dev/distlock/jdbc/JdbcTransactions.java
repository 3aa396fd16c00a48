package dev.distlock.jdbc;

import dev.distlock.spi.jdbc.BoundedConnection;
import dev.distlock.spi.jdbc.Transactions;
import dev.distlock.LockServiceUnavailableException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Short transactions, and single statements in auto-commit mode, on connections and threads of the
 * database backend's own: never the caller's transaction (a JTA data source enlists a connection in
 * whatever transaction its thread has); see {@link Transactions} for how one transaction runs. Every
 * wait on a connection is bounded ({@link BoundedConnection}): by the answer grace, after which
 * nobody waits for the answer any more, and on the renewal thread by the renewal's own bound. Closing
 * aborts the connections in use, so that a thread blocked on a dead socket ends with the backend
 * rather than whenever TCP gives up.
 */
final class JdbcTransactions implements AutoCloseable {

    private static final AtomicInteger THREADS = new AtomicInteger();

    /** One transaction's statements. */
    interface Work<T> {
        T in(Connection connection) throws SQLException;
    }

    /** How long the backend's threads wait for their threads to end at close. */
    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private final Supplier<DataSource> dataSource;
    private final long boundMillis;
    private final long renewalBoundMillis;
    private final Set<BoundedConnection> inUse = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private final ExecutorService io = Executors.newFixedThreadPool(4, runnable -> {
        Thread thread = new Thread(runnable, "distlock-jdbc-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    /** Lease renewals: never queued behind statements waiting for a row. */
    private final ExecutorService renewals = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "distlock-jdbc-renewal-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param boundMillis        the longest wait on a connection of a statement's
     * @param renewalBoundMillis the longest wait of a renewal's statement: short of the lease, so that a
     *                           row another transaction keeps locked delays the other renewals this little
     */
    JdbcTransactions(Supplier<DataSource> dataSource, long boundMillis, long renewalBoundMillis) {
        this.dataSource = dataSource;
        this.boundMillis = boundMillis;
        this.renewalBoundMillis = renewalBoundMillis;
    }

    /** Runs {@code work} in one transaction on one of the backend's threads. */
    <T> CompletableFuture<T> run(Work<T> work) {
        return onThread(work, false);
    }

    /**
     * Runs {@code work} on one of the backend's threads on a connection in auto-commit mode, each
     * statement committed as it runs ({@link Transactions#runInAutoCommit}): for work that is one
     * statement, or statements each safe on its own, which then costs one round trip each and no commit.
     */
    <T> CompletableFuture<T> runInAutoCommit(Work<T> work) {
        return onThread(work, true);
    }

    private <T> CompletableFuture<T> onThread(Work<T> work, boolean autoCommit) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            io.execute(() -> {
                try {
                    result.complete(autoCommit ? inAutoCommit(work) : inTransaction(work));
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new LockServiceUnavailableException("distlock's database backend is closed", e));
        }
        return result;
    }

    /** Runs {@code task} on one of the backend's threads; dropped once closed. */
    void execute(Runnable task) {
        try {
            io.execute(task);
        } catch (RejectedExecutionException closed) {
            // closed
        }
    }

    /** Runs {@code task} on the backend's renewal thread; dropped once closed. */
    void renew(Runnable task) {
        try {
            renewals.execute(task);
        } catch (RejectedExecutionException closed) {
            // closed
        }
    }

    /**
     * A connection for renewals on the calling thread (the renewal thread), in auto-commit mode: each
     * statement committed as it runs. Close it when done.
     */
    Session renewalSession() throws SQLException {
        Session session = new Session(open(renewalBoundMillis));
        session.bounded.connection().setAutoCommit(true);
        return session;
    }

    /** One committed transaction on the calling thread, which must be one of the backend's. */
    <T> T inTransaction(Work<T> work) throws SQLException {
        try (BoundedConnection bounded = open(boundMillis)) {
            return Transactions.run(bounded.connection(), work::in);
        } finally {
            forgetClosed();
        }
    }

    private <T> T inAutoCommit(Work<T> work) throws SQLException {
        try (BoundedConnection bounded = open(boundMillis)) {
            return Transactions.runInAutoCommit(bounded.connection(), work::in);
        } finally {
            forgetClosed();
        }
    }

    private BoundedConnection open(long bound) throws SQLException {
        if (closed) {
            throw new SQLException("distlock's database backend is closed");
        }
        BoundedConnection bounded = BoundedConnection.open(dataSource.get(), bound);
        inUse.add(bounded);
        if (closed) {
            bounded.abort();
        }
        return bounded;
    }

    private void forgetClosed() {
        inUse.removeIf(BoundedConnection::isClosed);
    }

    /** A connection of the renewal thread's, given back (its auto-commit mode restored) at close. */
    final class Session implements AutoCloseable {
        private final BoundedConnection bounded;
        private final boolean autoCommit;

        private Session(BoundedConnection bounded) throws SQLException {
            this.bounded = bounded;
            this.autoCommit = bounded.connection().getAutoCommit();
        }

        Connection connection() {
            return bounded.connection();
        }

        @Override
        public void close() {
            try (bounded) {
                bounded.connection().setAutoCommit(autoCommit);
            } catch (SQLException | RuntimeException e) {
                // The pool checks or replaces a connection it cannot reset.
            } finally {
                forgetClosed();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        io.shutdownNow();
        renewals.shutdownNow();
        inUse.forEach(BoundedConnection::abort);
        try {
            if (io.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                renewals.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
