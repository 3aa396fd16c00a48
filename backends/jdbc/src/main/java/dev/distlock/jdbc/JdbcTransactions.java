package dev.distlock.jdbc;

import dev.distlock.internal.jdbc.Transactions;

import dev.distlock.LockServiceUnavailableException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Short transactions on connections and threads of the database backend's own: never the caller's
 * transaction (a JTA data source enlists a connection in whatever transaction its thread has); see
 * {@link Transactions} for how one transaction runs.
 */
final class JdbcTransactions implements AutoCloseable {

    private static final AtomicInteger THREADS = new AtomicInteger();

    /** One transaction's statements. */
    interface Work<T> {
        T in(Connection connection) throws SQLException;
    }

    private final Supplier<DataSource> dataSource;
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

    JdbcTransactions(Supplier<DataSource> dataSource) {
        this.dataSource = dataSource;
    }

    /** Runs {@code work} in one transaction on one of the backend's threads. */
    <T> CompletableFuture<T> run(Work<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            io.execute(() -> {
                try {
                    result.complete(inTransaction(work));
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

    /** Statements each committed as it runs (auto-commit), on a connection of the calling thread's own. */
    <T> T autoCommitted(Work<T> work) throws SQLException {
        try (Connection connection = dataSource.get().getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(true);
            try {
                return work.in(connection);
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    /** One committed transaction on the calling thread, which must be one of the backend's. */
    <T> T inTransaction(Work<T> work) throws SQLException {
        return Transactions.run(dataSource.get(), work::in);
    }

    @Override
    public void close() {
        io.shutdownNow();
        renewals.shutdownNow();
    }
}
