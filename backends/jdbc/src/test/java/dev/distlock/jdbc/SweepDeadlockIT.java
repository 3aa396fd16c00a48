package dev.distlock.jdbc;

import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The sweep against a grant on MariaDB (InnoDB), step by step: the grant has locked its name's row
 * and is about to insert its holder when the sweep starts. The sweep's old shape (one transaction:
 * every ended holder, then every quiet name) deadlocked with it, and InnoDB rolled the grant back,
 * every time (once a grant's five retries in JdbcKeyspaceIT); the sweep as it is now waits for the
 * grant instead, and both complete.
 */
class SweepDeadlockIT {

    private static final long OLD = 1_000;
    private final String table = "sweep_" + Long.toString(System.nanoTime(), 36);
    private DataSource dataSource;

    @AfterEach
    void drop() throws SQLException {
        if (dataSource != null) {
            TestDatabases.dropTable(dataSource, table);
            TestDatabases.dropTable(dataSource, table + "_name");
        }
    }

    @Test
    void theSweepWaitsForAGrantInsteadOfDeadlockingWithIt() throws Exception {
        LockTables tables = prepare();
        JdbcTransactions transactions = new JdbcTransactions(() -> dataSource, 30_000, 30_000);
        try (Connection grant = dataSource.getConnection()) {
            grant.setAutoCommit(false);
            tables.lockName(grant, "a");
            CompletableFuture<Integer> sweep = CompletableFuture.supplyAsync(() -> {
                try {
                    return tables.sweep(transactions, OLD + 1);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(500); // the sweep reaches name a's row, which the grant holds
            tables.insertHolder(grant, "a", "holder-a", true, Long.MAX_VALUE / 2, 0);
            grant.commit();
            int removed = sweep.get(30, TimeUnit.SECONDS);
            assertEquals(3, removed, "the ended holder of z, then the quiet names b and z; a has its holder now");
            try (Connection check = dataSource.getConnection(); Statement statement = check.createStatement();
                 java.sql.ResultSet names = statement.executeQuery("SELECT name FROM " + table + "_name")) {
                names.next();
                assertEquals("a", names.getString(1));
                assertEquals(false, names.next(), "only a's row is left");
            }
        } finally {
            transactions.close();
        }
    }

    /** The twin: the sweep's old shape, with the same steps, deadlocks and the grant is the victim. */
    @Test
    void theOldSweepDeadlockedWithTheGrant() throws Exception {
        LockTables tables = prepare();
        try (Connection grant = dataSource.getConnection(); Connection sweeper = dataSource.getConnection()) {
            grant.setAutoCommit(false);
            sweeper.setAutoCommit(false);
            tables.lockName(grant, "a");
            CompletableFuture<SQLException> sweep = CompletableFuture.supplyAsync(() -> {
                try (Statement statement = sweeper.createStatement()) {
                    statement.executeUpdate("DELETE FROM " + table + " WHERE expires_at < " + (OLD + 1));
                    statement.executeUpdate("DELETE FROM " + table + "_name WHERE token < " + (OLD + 1) * 1_000
                            + " AND NOT EXISTS (SELECT 1 FROM " + table + " h WHERE h.name = " + table + "_name.name)");
                    sweeper.commit();
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            Thread.sleep(500);
            SQLException grantFailure = null;
            try {
                tables.insertHolder(grant, "a", "holder-a", true, Long.MAX_VALUE / 2, 0);
                grant.commit();
            } catch (SQLException e) {
                grantFailure = e;
                grant.rollback();
            }
            SQLException sweepFailure = sweep.get(60, TimeUnit.SECONDS);
            SQLException deadlock = grantFailure != null ? grantFailure : sweepFailure;
            assertInstanceOf(SQLTransactionRollbackException.class, deadlock, "one of the two should have been a deadlock's victim");
            assertNull(grantFailure == null ? null : sweepFailure, "only one victim");
        }
    }

    /** Names a and b, old and without holders; an ended holder of z. */
    private LockTables prepare() throws SQLException {
        Database.MARIADB.assumeAvailable();
        dataSource = Database.MARIADB.dataSource();
        LockTables tables = LockTables.open(dataSource, table, 5_000);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("INSERT INTO " + table + "_name (name, token) VALUES ('a', 0), ('b', 0), ('z', 0)");
            try (PreparedStatement holder = connection.prepareStatement("INSERT INTO " + table
                    + " (name, holder, mode, expires_at, token) VALUES ('z', 'holder-z', 'X', ?, 0)")) {
                holder.setLong(1, OLD);
                holder.executeUpdate();
            }
        }
        return tables;
    }
}
