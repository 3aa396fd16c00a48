package dev.distlock.core.id;

import dev.distlock.core.jdbc.Transactions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The segment table in any JDBC database (H2, PostgreSQL, MariaDB/MySQL): one row per generator
 * with the highest id ever leased. A lease is an {@code UPDATE ... SET max_id = max_id + step}
 * and a read of the new value in one committed transaction on a connection of its own; the row
 * lock of the update serializes nodes. A transaction the database rolls back (two nodes creating the
 * first row at once) is run again ({@link Transactions}).
 */
public final class JdbcSegmentStore implements SegmentStore {

    public static final String DEFAULT_TABLE = "distlock_id_segment";
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final DataSource dataSource;
    private final String table;

    public JdbcSegmentStore(DataSource dataSource, String table) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("distlock.id.table must be a plain SQL identifier (letters, digits, _), was '" + table + "'");
        }
        this.table = table;
    }

    /**
     * A store over {@code dataSource} that creates its table with the first lease, on the
     * generator's own thread: a database that is down fails {@code nextId()}, not the making.
     */
    public static SegmentStore creatingTableOnFirstLease(DataSource dataSource, String table) {
        JdbcSegmentStore store = new JdbcSegmentStore(dataSource, table);
        java.util.concurrent.atomic.AtomicBoolean tableReady = new java.util.concurrent.atomic.AtomicBoolean();
        return (name, step) -> {
            if (!tableReady.get()) {
                store.createTableIfAbsent();
                tableReady.set(true);
            }
            return store.lease(name, step);
        };
    }

    /** Creates the table if it does not exist yet; several nodes may do so at once. */
    public void createTableIfAbsent() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + table + " ("
                    + "name VARCHAR(100) NOT NULL PRIMARY KEY, "
                    + "max_id BIGINT NOT NULL, "
                    + "step BIGINT NOT NULL, "
                    + "updated_at TIMESTAMP NOT NULL)");
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        } catch (SQLException e) {
            // PostgreSQL fails all but one of several concurrent CREATE TABLE IF NOT EXISTS with a
            // duplicate key in its catalog; the table is there all the same.
            if (!tableExists(e)) {
                throw e;
            }
        }
    }

    private boolean tableExists(SQLException creationFailure) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT name, max_id, step, updated_at FROM " + table + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            creationFailure.addSuppressed(e);
            return false;
        }
    }

    @Override
    public Range lease(String name, long step) throws SQLException {
        if (step < 1) {
            throw new IllegalArgumentException("step must be >= 1, was " + step);
        }
        return Transactions.run(dataSource, connection -> leaseInTransaction(connection, name, step));
    }

    private Range leaseInTransaction(Connection connection, String name, long step) throws SQLException {
        Timestamp now = Timestamp.from(Instant.now());
        if (advance(connection, name, step, now) == 0) {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO " + table + " (name, max_id, step, updated_at) VALUES (?, ?, ?, ?)")) {
                insert.setString(1, name);
                insert.setLong(2, step);
                insert.setLong(3, step);
                insert.setTimestamp(4, now);
                insert.executeUpdate();
                return new Range(1, step);
            } catch (SQLException duplicate) {
                if (!isConstraintViolation(duplicate)) {
                    throw duplicate;
                }
                // Another node created the row meanwhile: take the next range after it.
                connection.rollback();
                if (advance(connection, name, step, now) == 0) {
                    throw duplicate;
                }
            }
        }
        try (PreparedStatement select = connection.prepareStatement("SELECT max_id FROM " + table + " WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new SQLException("row of id generator '" + name + "' vanished from " + table);
                }
                long max = row.getLong(1);
                return new Range(max - step + 1, max);
            }
        }
    }

    private int advance(Connection connection, String name, long step, Timestamp now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE " + table + " SET max_id = max_id + ?, step = ?, updated_at = ? WHERE name = ?")) {
            update.setLong(1, step);
            update.setLong(2, step);
            update.setTimestamp(3, now);
            update.setString(4, name);
            return update.executeUpdate();
        }
    }

    private static boolean isConstraintViolation(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("23");
    }
}
