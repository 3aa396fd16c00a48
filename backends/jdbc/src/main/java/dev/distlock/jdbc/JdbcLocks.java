package dev.distlock.jdbc;

import dev.distlock.DistributedLocks;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Objects;

/**
 * Locks as rows in the application's database without CDI: the same engine and semantics as
 * {@code distlock.backend=jdbc}.
 *
 * <pre>{@code
 * DistributedLocks locks = JdbcLocks.builder(dataSource).build();
 * locks.exclusive("stock:" + DistributedLocks.encode(sku)).run(() -> inventory.reserve(sku, 1));
 * }</pre>
 *
 * <p>The tables are made on first use if they are absent ({@code distlock_lock} and
 * {@code distlock_lock_name} unless named otherwise). A lock held by a JVM that stops is taken for
 * free once its lease has gone unrenewed for {@link #DEFAULT_LEASE}; fencing tokens come from the
 * database. Closing the locks stops their renewals; the DataSource stays the application's.
 */
public final class JdbcLocks {

    /** How long a held lock's row lasts without a renewal unless said otherwise: 30 s. */
    public static final Duration DEFAULT_LEASE = Duration.ofMillis(JdbcBackend.DEFAULT_LEASE_MILLIS);

    private JdbcLocks() {
    }

    /** Locks in the tables {@value JdbcBackend#DEFAULT_TABLE} and {@value JdbcBackend#DEFAULT_TABLE}{@code _name}. */
    public static DistributedLocks.Builder builder(DataSource dataSource) {
        return builder(dataSource, JdbcBackend.DEFAULT_TABLE, DEFAULT_LEASE);
    }

    /**
     * Locks in the tables {@code table} and {@code table_name}.
     *
     * @param table a plain SQL identifier (letters, digits, {@code _}; at most 58 characters)
     * @param lease how long a held lock lasts without a renewal: how long a lock of a JVM that
     *              stopped stays taken; at least 300 ms
     * @throws IllegalArgumentException naming the table or the lease when it is not allowed
     */
    public static DistributedLocks.Builder builder(DataSource dataSource, String table, Duration lease) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(lease, "lease");
        LockTables.checkTableName(table);
        long leaseMillis = lease.toMillis();
        if (leaseMillis < 300) {
            throw new IllegalArgumentException("the lease must be at least 300 ms, was " + lease);
        }
        return DistributedLocks.builder(answerGrace -> new JdbcBackend(dataSource, table, leaseMillis, answerGrace.toMillis()));
    }
}
