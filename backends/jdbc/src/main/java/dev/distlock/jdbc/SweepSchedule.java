package dev.distlock.jdbc;

import dev.distlock.spi.LockBackend.Later;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * When a {@link JdbcBackend}'s sweep ({@link TableSweep}) runs: on the backend's thread, as often
 * as names expire but at least every ten minutes, from the engine's binding of the backend to its
 * close. Apart from the sweep's statements because it is a timer, and apart from the backend because
 * a failed sweep is nobody's failure: the next one removes what it left.
 */
final class SweepSchedule {

    /** The sweep of ended holders and quiet names runs at least this often. */
    private static final long LONGEST_SWEEP_INTERVAL_MILLIS = TimeUnit.MINUTES.toMillis(10);

    private final JdbcTransactions transactions;
    private final LazyLockTables tables;
    private final long nameExpiryMillis;
    private volatile Later later = (task, delayNanos) -> { };
    private volatile boolean closed;

    SweepSchedule(JdbcTransactions transactions, LazyLockTables tables, long nameExpiryMillis) {
        this.transactions = transactions;
        this.tables = tables;
        this.nameExpiryMillis = nameExpiryMillis;
    }

    /** Schedules the first sweep with {@code later}, which also runs each next one. */
    void start(Later later) {
        this.later = later;
        scheduleSweep();
    }

    void close() {
        closed = true;
    }

    private void scheduleSweep() {
        long interval = Math.min(nameExpiryMillis, LONGEST_SWEEP_INTERVAL_MILLIS);
        later.run(() -> transactions.execute(this::sweep), TimeUnit.MILLISECONDS.toNanos(interval));
    }

    /** Removes ended holders and quiet names ({@link TableSweep}); on the backend's thread. */
    private void sweep() {
        if (closed) {
            return;
        }
        try {
            if (tables.openedTables() != null) {
                long before = transactions.inTransaction(connection -> tables.tables().now(connection)) - nameExpiryMillis;
                tables.tables().sweep(transactions, before);
            }
        } catch (SQLException | RuntimeException e) {
            // The next sweep removes them.
        } finally {
            scheduleSweep();
        }
    }
}
