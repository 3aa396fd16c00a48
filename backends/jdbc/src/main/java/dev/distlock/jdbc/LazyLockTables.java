package dev.distlock.jdbc;

import dev.distlock.LockServiceUnavailableException;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The DataSource and the lock tables of a {@link JdbcBackend}, found and opened on first need rather
 * than when the backend is made: a JNDI name can only be looked up on a caller's thread, and the
 * database may not answer yet when the application starts. Until they are found, every call tries
 * again.
 */
final class LazyLockTables {

    private final Supplier<DataSource> dataSources;
    private volatile DataSource dataSource;
    private final String table;
    /** How long opening the tables may take. */
    private final long boundMillis;
    private volatile LockTables tables;
    /** Held while the tables are opened (statements to the database): not a monitor, which would pin a virtual thread's carrier on Java 21 to 23. */
    private final ReentrantLock opening = new ReentrantLock();
    /** The name of this server, kept beside its holders; null until the engine names it. */
    private volatile String nodeName;

    LazyLockTables(Supplier<DataSource> dataSources, String table, long boundMillis) {
        this.dataSources = Objects.requireNonNull(dataSources, "dataSources");
        this.table = table;
        this.boundMillis = boundMillis;
    }

    /** The name of this server, written beside the holders of tables opened from now on. */
    void name(String nodeName) {
        this.nodeName = nodeName;
    }

    /** The DataSource; found on the calling thread the first time. */
    DataSource dataSource() {
        DataSource current = dataSource;
        if (current == null) {
            try {
                current = Objects.requireNonNull(dataSources.get(), "no DataSource");
            } catch (RuntimeException e) {
                throw new LockServiceUnavailableException("The lock database cannot be reached: " + e.getMessage(), e);
            }
            dataSource = current;
        }
        return current;
    }

    /** The tables, opened on first need. */
    LockTables tables() throws SQLException {
        LockTables current = tables;
        if (current == null) {
            opening.lock();
            try {
                current = tables;
                if (current == null) {
                    current = LockTables.open(dataSource(), table, boundMillis, nodeName);
                    tables = current;
                }
            } finally {
                opening.unlock();
            }
        }
        return current;
    }

    /** The tables if they are open, else {@code null}. */
    LockTables openedTables() {
        return tables;
    }
}
