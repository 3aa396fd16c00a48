package dev.distlock.jdbc;

import dev.distlock.spi.jdbc.BoundedConnection;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The two lock tables and the statements of a lock's life on them: grant, check, renewal, release.
 * {@code <table>} has a row per holder (the lock's name, the holder's id, {@code X} for
 * exclusive/write or {@code R} for read, when the lease ends in the database's clock, the fencing
 * token); {@code <table>_name} a row per lock name, locked by every grant decision on that name, so
 * decisions on one name are serialized while the rows of others stay free, and carrying the name's
 * last fencing token. A grant takes the row {@code FOR UPDATE} in a transaction
 * ({@link #grantInTransaction}) or, on PostgreSQL, updates it in the one statement that decides
 * ({@link PostgresGrant}).
 *
 * <p>Time is always the database's ({@link DatabaseClock}), read in the transaction that uses it:
 * two JVMs with clocks apart agree on when a lease ends.
 *
 * <p>What is not a holder's own lives beside: making the tables ({@link LockSchema}), the sweep of
 * what nobody needs ({@link TableSweep}), an operator's listing ({@link JdbcLockListing}) and forced
 * release ({@link JdbcForcedRelease}).
 */
final class LockTables {

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,57}");
    /**
     * The width of the name columns, a lock's whole name (prefix and namespace included). Wider would
     * not fit MariaDB's and MySQL's 3,072-byte index key in utf8mb4; the engine refuses longer names.
     */
    static final int MAX_NAME_LENGTH = 512;
    /** Tokens are at least the database's time in microseconds: they keep growing even if a name's row is lost. */
    static final long MICROS_PER_MILLI = 1_000;

    final String holders;
    final String names;
    private final DatabaseClock clock;
    /** The grant in one statement, on PostgreSQL; {@code null} where a grant is a transaction. */
    private final PostgresGrant oneStatement;
    private final String releaseSql;
    /** The name of this server, written beside each holder it inserts ({@link dev.distlock.spi.NodeName}); null for none. */
    private final String node;

    private LockTables(String table, DatabaseClock clock, boolean postgres, String node) {
        this.node = node;
        this.holders = table;
        this.names = table + "_name";
        this.clock = clock;
        this.oneStatement = postgres ? new PostgresGrant(holders, names, nowExpression(), node) : null;
        // The release, relaxed on PostgreSQL (see delete).
        String release = "DELETE FROM " + holders + " WHERE name = ? AND holder = ? AND expires_at > (" + nowExpression() + ")";
        this.releaseSql = postgres ? "WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true)) " + release
                + " AND EXISTS (SELECT 1 FROM relaxed)" : release;
    }

    static void checkTableName(String table) {
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("The lock table must be a plain SQL identifier (letters, digits, _; "
                    + "at most 58 characters), was '" + table + "'");
        }
    }

    /** {@link #open(DataSource, String, long, String)} for holders of no named server. */
    static LockTables open(DataSource dataSource, String table, long boundMillis) throws SQLException {
        return open(dataSource, table, boundMillis, null);
    }

    /**
     * Creates the tables if absent (several nodes may at once), adds the {@code node} column to a
     * holders' table made by a version without it, and learns the database's dialect.
     *
     * @param node the name of this server, kept beside each holder it takes; null for none
     */
    static LockTables open(DataSource dataSource, String table, long boundMillis, String node) throws SQLException {
        checkTableName(table);
        try (BoundedConnection bounded = BoundedConnection.open(dataSource, boundMillis)) {
            Connection connection = bounded.connection();
            DatabaseMetaData metaData = connection.getMetaData();
            LockTables tables = new LockTables(table, DatabaseClock.of(metaData),
                    metaData.getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres"), node);
            LockSchema.create(connection, tables.holders, tables.names, boundMillis);
            return tables;
        }
    }

    /** The database's time in milliseconds. */
    long now(Connection connection) throws SQLException {
        return clock.now(connection);
    }

    /**
     * Whether {@link #grant} is one statement, safe in auto-commit mode (PostgreSQL); otherwise it
     * needs a transaction of its own.
     */
    boolean grantsInOneStatement() {
        return oneStatement != null;
    }

    /**
     * One grant decision: the token (0 unfenced) if granted, {@code null} if another holder excludes
     * this one. On PostgreSQL one statement ({@link PostgresGrant}); on H2 and MariaDB/MySQL, which
     * cannot change two tables in one statement, {@link #grantInTransaction}, and {@code connection}
     * must then be in a transaction.
     */
    Long grant(Connection connection, String name, String holder, boolean exclusive, long leaseMillis, boolean fenced)
            throws SQLException {
        if (oneStatement != null) {
            return oneStatement.grant(connection, name, holder, exclusive, leaseMillis, fenced);
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("a grant on this database needs a transaction: its row lock on the name "
                    + "would end with the first statement");
        }
        return grantInTransaction(connection, name, holder, exclusive, leaseMillis, fenced);
    }

    /**
     * One grant decision in the transaction of {@code connection}, in six statements: lock the
     * name's row (creating it if needed), read the database's time, delete the name's ended holders,
     * look for a holder that excludes this one, move the token on (fenced locks), insert the holder.
     * Every statement after the first sees what the grants before it committed: they waited for the
     * name's row.
     */
    Long grantInTransaction(Connection connection, String name, String holder, boolean exclusive, long leaseMillis,
                            boolean fenced) throws SQLException {
        long lastToken = lockName(connection, name);
        // Read once the name's row is locked: a time read before the wait would shorten the new lease.
        long now = now(connection);
        dropEnded(connection, name, now);
        if (blocked(connection, name, exclusive)) {
            return null;
        }
        long token = fenced ? nextToken(connection, name, lastToken, now) : 0;
        insertHolder(connection, name, holder, exclusive, now + leaseMillis, token);
        return token;
    }

    /**
     * Locks the name's row for the rest of the transaction, creating it first if needed.
     *
     * @return the name's last fencing token
     */
    long lockName(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT token FROM " + names + " WHERE name = ? FOR UPDATE")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                if (row.next()) {
                    return row.getLong(1);
                }
            }
        }
        // A duplicate key (another node created it meanwhile) fails the transaction, which is run again.
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + names + " (name, token) VALUES (?, 0)")) {
            insert.setString(1, name);
            insert.executeUpdate();
        }
        return 0;
    }

    /** Removes the name's holders whose lease has ended. */
    private void dropEnded(Connection connection, String name, long now) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + holders + " WHERE name = ? AND expires_at <= ?")) {
            delete.setString(1, name);
            delete.setLong(2, now);
            delete.executeUpdate();
        }
    }

    /** Whether the name has a holder that excludes {@code exclusive}: any holder for an exclusive lock, a writer for a reader. */
    private boolean blocked(Connection connection, String name, boolean exclusive) throws SQLException {
        String sql = "SELECT 1 FROM " + holders + " WHERE name = ?" + (exclusive ? "" : " AND mode = 'X'");
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, name);
            select.setMaxRows(1);
            try (ResultSet row = select.executeQuery()) {
                return row.next();
            }
        }
    }

    /** The next token of the name: above the last, and at least the database's time in microseconds. */
    private long nextToken(Connection connection, String name, long lastToken, long now) throws SQLException {
        long token = Math.max(lastToken + 1, now * MICROS_PER_MILLI);
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + names + " SET token = ? WHERE name = ?")) {
            update.setLong(1, token);
            update.setString(2, name);
            update.executeUpdate();
        }
        return token;
    }

    void insertHolder(Connection connection, String name, String holder, boolean exclusive, long expiresAt, long token)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + holders + " (name, holder, mode, expires_at, token, node) VALUES (?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, name);
            insert.setString(2, holder);
            insert.setString(3, exclusive ? "X" : "R");
            insert.setLong(4, expiresAt);
            insert.setLong(5, token);
            insert.setString(6, node);
            insert.executeUpdate();
        }
    }

    /** Whether the holder's lease is in force now. */
    boolean holds(Connection connection, String name, String holder) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT 1 FROM " + holders + " WHERE name = ? AND holder = ? AND expires_at > (" + nowExpression() + ")")) {
            select.setString(1, name);
            select.setString(2, holder);
            try (ResultSet row = select.executeQuery()) {
                return row.next();
            }
        }
    }

    /**
     * Extends the holder's lease to {@code leaseMillis} from the database's now, if it has not ended:
     * one statement, so that on a connection in auto-commit mode the database commits it as it runs
     * and a node cut off mid-renewal leaves no transaction open on the row (one left open would keep
     * every other node from taking the lock until the database dropped the dead session).
     */
    boolean extend(Connection connection, String name, String holder, long leaseMillis) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + holders + " SET expires_at = ("
                + nowExpression() + ") + ? WHERE name = ? AND holder = ? AND expires_at > (" + nowExpression() + ")")) {
            update.setLong(1, leaseMillis);
            update.setString(2, name);
            update.setString(3, holder);
            return update.executeUpdate() == 1;
        }
    }

    /**
     * Deletes the holder's row: whether its lease was still in force. One statement when it was; an
     * ended row is deleted by a second. Each is safe on its own, in auto-commit mode: a lease that
     * has ended is never extended again, so nothing can bring it back between the two.
     *
     * <p>On PostgreSQL the first commits without waiting for its WAL to reach the disk
     * ({@code synchronous_commit} off for that statement's transaction only; the connection keeps its
     * own setting). Safe because the WAL is one sequence: every later grant, which commits waiting
     * for the disk, makes the release durable with it, so a crash can only lose a release that nobody
     * was granted after; its lock is then held again until its lease ends, as if its holder had died
     * before releasing. Never two holders, never a token again. Half the disk waits of a lock call.
     */
    boolean delete(Connection connection, String name, String holder) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(releaseSql)) {
            delete.setString(1, name);
            delete.setString(2, holder);
            if (delete.executeUpdate() == 1) {
                return true;
            }
        }
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + holders + " WHERE name = ? AND holder = ?")) {
            delete.setString(1, name);
            delete.setString(2, holder);
            delete.executeUpdate();
        }
        return false;
    }

    /**
     * Removes ended holders and quiet names ({@link TableSweep#sweep}).
     *
     * @return rows removed
     */
    int sweep(JdbcTransactions transactions, long before) throws SQLException {
        return TableSweep.sweep(this, transactions, before);
    }

    /** The database's time as an SQL expression ({@link DatabaseClock#expression}). */
    String nowExpression() {
        return clock.expression();
    }
}
