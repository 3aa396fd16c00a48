package dev.distlock.example.shop;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.util.Set;

/**
 * Whether a database failure means "the row was held by another transaction for longer than the
 * database waits", which a buyer can retry, rather than a fault.
 *
 * <p>Under the SKU's lock no other order touches the stock row, so a wait for it can only time out
 * when the lock was not exclusive for a moment: Redis restarted empty while a holder on another
 * server was at its commit, and that holder keeps the row until distlock's check before the commit
 * has its answer (then rolls back). The order that times out has written nothing.
 */
final class RowLockTimeouts {

    /** H2's lock timeout, PostgreSQL's lock_not_available, serialization failure, PostgreSQL's deadlock. */
    private static final Set<String> STATES = Set.of("HYT00", "55P03", "40001", "40P01");

    /** MySQL and MariaDB: lock wait timeout exceeded, deadlock. */
    private static final Set<Integer> VENDOR_CODES = Set.of(1205, 1213);

    private RowLockTimeouts() {
    }

    static boolean causedBy(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLTimeoutException || cause instanceof SQLTransactionRollbackException) {
                return true;
            }
            if (cause instanceof SQLException sql
                    && (STATES.contains(sql.getSQLState()) || VENDOR_CODES.contains(sql.getErrorCode()))) {
                return true;
            }
        }
        return false;
    }
}
