package dev.distlock.jdbc;

import dev.distlock.spi.NodeName;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * Makes the two lock tables ({@link LockTables}) where they are missing, when a node first opens
 * them. Apart from the statements on the rows because it runs once, and because several nodes may run
 * it at the same time: a refused statement is only a failure if the table it makes is still missing.
 */
final class LockSchema {

    /** How often a node that could not add the {@code node} column looks whether another added it. */
    private static final long COLUMN_POLL_MILLIS = 50;

    private LockSchema() {
    }

    /**
     * Creates the tables if absent (several nodes may at once) and adds the {@code node} column to a
     * holders' table made by a version without it.
     */
    static void create(Connection connection, String holders, String names, long boundMillis) throws SQLException {
        String[] statements = {
                "CREATE TABLE IF NOT EXISTS " + names + " (name VARCHAR(" + LockTables.MAX_NAME_LENGTH + ") NOT NULL PRIMARY KEY, token BIGINT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS " + holders + " (name VARCHAR(" + LockTables.MAX_NAME_LENGTH + ") NOT NULL, holder VARCHAR(40) NOT NULL, "
                        + "mode CHAR(1) NOT NULL, expires_at BIGINT NOT NULL, token BIGINT NOT NULL, node VARCHAR("
                        + NodeName.MAX_LENGTH + "), PRIMARY KEY (name, holder))"
        };
        for (String sql : statements) {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
                if (!connection.getAutoCommit()) {
                    connection.commit();
                }
            } catch (SQLException e) {
                // PostgreSQL fails all but one of several concurrent CREATE TABLE IF NOT EXISTS.
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
                if (!answers(connection, "SELECT * FROM " + (sql.contains(names + " (") ? names : holders))) {
                    throw e;
                }
            }
        }
        addNodeColumn(connection, holders, boundMillis);
    }

    /**
     * A holders' table made before holders named their server has no {@code node} column: added,
     * empty for the rows already there (holders of no known server). Nothing else changes, so older
     * nodes still writing to the table (a rolling upgrade) insert their holders as before.
     */
    private static void addNodeColumn(Connection connection, String holders, long boundMillis) throws SQLException {
        String nodeColumn = "SELECT node FROM " + holders;
        if (answers(connection, nodeColumn)) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE " + holders + " ADD COLUMN node VARCHAR(" + NodeName.MAX_LENGTH + ")");
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        } catch (SQLException e) {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
            // Another node adds it at the same time: its ALTER is refused, or waits for the other's
            // lock and times out (H2) before the other committed. Wait for the column to appear.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
            while (!answers(connection, nodeColumn)) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                try {
                    Thread.sleep(COLUMN_POLL_MILLIS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** Whether {@code select} ({@code SELECT … FROM <table>}) can be asked: the table, and the columns it names, exist. */
    private static boolean answers(Connection connection, String select) {
        try (Statement statement = connection.createStatement()) {
            statement.executeQuery(select + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            if (!isAutoCommit(connection)) {
                rollBack(connection); // PostgreSQL refuses every later statement of a transaction that failed one
            }
            return false;
        }
    }

    private static boolean isAutoCommit(Connection connection) {
        try {
            return connection.getAutoCommit();
        } catch (SQLException e) {
            return true;
        }
    }

    private static void rollBack(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the caller's next statement reports the connection's state
        }
    }
}
