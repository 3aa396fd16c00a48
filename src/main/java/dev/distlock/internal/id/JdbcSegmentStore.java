package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.spi.jdbc.Transactions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The segment table in any JDBC database (H2, PostgreSQL, MariaDB/MySQL): one row per generator
 * with the highest id ever leased. A lease is an {@code UPDATE ... SET max_id = max_id + step}
 * and a read of the new value in one committed transaction on a connection of its own; the row
 * lock of the update serializes nodes. A transaction the database rolls back (two nodes creating the
 * first row at once) is run again ({@link Transactions}).
 *
 * <p>Next to it, the table {@code <table>_spare} keeps the ranges closed generators did not use
 * ({@link JdbcSpareRanges}); both are created together.
 */
public final class JdbcSegmentStore implements SegmentStore {

    public static final String DEFAULT_TABLE = dev.distlock.id.Ids.DEFAULT_TABLE;
    /** PostgreSQL's limit for an identifier. */
    private static final int MAX_IDENTIFIER_LENGTH = 63;
    /** The longest segment table name whose spare table {@code <table>_spare} is still an identifier. */
    public static final int MAX_TABLE_LENGTH = MAX_IDENTIFIER_LENGTH - JdbcSpareRanges.SUFFIX.length();
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final DataSource dataSource;
    private final String table;
    private final JdbcSpareRanges spares;
    private final boolean createsTables;
    private volatile boolean tablesReady;

    public JdbcSegmentStore(DataSource dataSource, String table) {
        this(dataSource, table, false);
    }

    private JdbcSegmentStore(DataSource dataSource, String table, boolean createsTables) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.table = checkTable(table);
        this.spares = new JdbcSpareRanges(dataSource, table);
        this.createsTables = createsTables;
    }

    /**
     * The table name as given, if it can name the segment table and its {@code <table>_spare}.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static String checkTable(String table) {
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("distlock.id.table must be a plain SQL identifier (letters, digits, _), was '" + table + "'");
        }
        if (table.length() > MAX_TABLE_LENGTH) {
            throw new IllegalArgumentException("distlock.id.table must be at most " + MAX_TABLE_LENGTH + " characters, so that its "
                    + "spare table <table>_spare ('" + table + JdbcSpareRanges.SUFFIX + "') is at most " + MAX_IDENTIFIER_LENGTH
                    + "; was '" + table + "' (" + table.length() + ")");
        }
        return table;
    }

    /**
     * A store over {@code dataSource} that creates its table with the first lease, on the
     * generator's own thread: a database that is down fails {@code nextId()}, not the making.
     */
    public static SegmentStore creatingTableOnFirstLease(DataSource dataSource, String table) {
        return new JdbcSegmentStore(dataSource, table, true);
    }

    /** Creates the segment table and its spare table if they do not exist yet; several nodes may do so at once. */
    public void createTableIfAbsent() throws SQLException {
        createIfAbsent("CREATE TABLE IF NOT EXISTS " + table + " ("
                        + "name VARCHAR(100) NOT NULL PRIMARY KEY, "
                        + "max_id BIGINT NOT NULL, "
                        + "step BIGINT NOT NULL, "
                        + "updated_at TIMESTAMP NOT NULL)",
                "SELECT name, max_id, step, updated_at FROM " + table + " WHERE 1 = 0");
        createIfAbsent(spares.createSql(), spares.probeSql());
    }

    private void createIfAbsent(String create, String probe) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(create);
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        } catch (SQLException e) {
            // PostgreSQL fails all but one of several concurrent CREATE TABLE IF NOT EXISTS with a
            // duplicate key in its catalog; the table is there all the same.
            if (!tableExists(probe, e)) {
                throw e;
            }
        }
    }

    private boolean tableExists(String probe, SQLException creationFailure) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeQuery(probe).close();
            return true;
        } catch (SQLException e) {
            creationFailure.addSuppressed(e);
            return false;
        }
    }

    private void createTablesOnFirstUse() throws SQLException {
        if (createsTables && !tablesReady) {
            createTableIfAbsent();
            tablesReady = true;
        }
    }

    @Override
    public Range lease(String name, long step) throws SQLException {
        if (step < 1) {
            throw new IllegalArgumentException("step must be >= 1, was " + step);
        }
        createTablesOnFirstUse();
        return Transactions.run(dataSource, connection -> leaseInTransaction(connection, name, step));
    }

    /** Takes the lowest spare range above {@code above} from {@code <table>_spare}, deleting its row. */
    @Override
    public Optional<Range> takeSpare(String name, long above) throws SQLException {
        createTablesOnFirstUse();
        return spares.take(name, above);
    }

    /** Keeps the ranges in {@code <table>_spare}, all or none, in one transaction. */
    @Override
    public void keepSpares(String name, List<Range> ranges) throws SQLException {
        createTablesOnFirstUse();
        spares.keep(name, ranges);
    }

    @Override
    public String whereKept(String name) {
        return "max_id of the row name = '" + name + "' in the table " + table;
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
