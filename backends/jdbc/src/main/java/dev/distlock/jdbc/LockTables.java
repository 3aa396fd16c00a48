package dev.distlock.jdbc;

import dev.distlock.LockMode;
import dev.distlock.spi.NodeName;
import dev.distlock.spi.StoredLock;

import dev.distlock.spi.jdbc.BoundedConnection;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The two lock tables and every statement on them. {@code <table>} has a row per holder (the lock's
 * name, the holder's id, {@code X} for exclusive/write or {@code R} for read, when the lease ends in
 * the database's clock, the fencing token); {@code <table>_name} a row per lock name, locked by every
 * grant decision on that name, so decisions on one name are serialized while the rows of others stay
 * free, and carrying the name's last fencing token. A grant takes the row {@code FOR UPDATE} in a
 * transaction ({@link #grantInTransaction}) or, on PostgreSQL, updates it in the one statement that
 * decides ({@link PostgresGrant}).
 *
 * <p>Time is always the database's, read in the transaction that uses it: two JVMs with clocks
 * apart agree on when a lease ends.
 */
final class LockTables {

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,57}");
    /**
     * The width of the name columns, a lock's whole name (prefix and namespace included). Wider would
     * not fit MariaDB's and MySQL's 3,072-byte index key in utf8mb4; the engine refuses longer names.
     */
    static final int MAX_NAME_LENGTH = 512;
    /** How often a node that could not add the {@code node} column looks whether another added it. */
    private static final long COLUMN_POLL_MILLIS = 50;
    /** Tokens are at least the database's time in microseconds: they keep growing even if a name's row is lost. */
    private static final long MICROS_PER_MILLI = 1_000;

    final String holders;
    final String names;
    private final String nowSql;
    /** The grant in one statement, on PostgreSQL; {@code null} where a grant is a transaction. */
    private final PostgresGrant oneStatement;
    private final String releaseSql;
    /** The name of this server, written beside each holder it inserts ({@link dev.distlock.spi.NodeName}); null for none. */
    private final String node;

    private LockTables(String table, String nowSql, boolean postgres, String node) {
        this.node = node;
        this.holders = table;
        this.names = table + "_name";
        this.nowSql = nowSql;
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
            LockTables tables = new LockTables(table, nowSql(metaData),
                    metaData.getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres"), node);
            tables.create(connection, boundMillis);
            return tables;
        }
    }

    private static String nowSql(DatabaseMetaData metaData) throws SQLException {
        String product = metaData.getDatabaseProductName().toLowerCase(Locale.ROOT);
        if (product.contains("postgres")) {
            return "SELECT CAST(EXTRACT(EPOCH FROM CLOCK_TIMESTAMP()) * 1000 AS BIGINT)";
        }
        if (product.contains("mariadb") || product.contains("mysql")) {
            // Not UNIX_TIMESTAMP(NOW(3)): that reads a local time back through the session's zone, and the
            // hour a zone repeats when summer time ends is read as the hour before (now an hour behind, then
            // a jump ahead that ends every lease written meanwhile). UTC_TIMESTAMP has no zone to misread.
            return "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(3)) DIV 1000";
        }
        if (product.contains("h2")) {
            return "SELECT CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)";
        }
        throw new SQLException("The database backend supports H2, PostgreSQL and MariaDB/MySQL; this database is "
                + metaData.getDatabaseProductName());
    }

    private void create(Connection connection, long boundMillis) throws SQLException {
        String[] statements = {
                "CREATE TABLE IF NOT EXISTS " + names + " (name VARCHAR(" + MAX_NAME_LENGTH + ") NOT NULL PRIMARY KEY, token BIGINT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS " + holders + " (name VARCHAR(" + MAX_NAME_LENGTH + ") NOT NULL, holder VARCHAR(40) NOT NULL, "
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
        addNodeColumn(connection, boundMillis);
    }

    /**
     * A holders' table made before holders named their server has no {@code node} column: added,
     * empty for the rows already there (holders of no known server). Nothing else changes, so older
     * nodes still writing to the table (a rolling upgrade) insert their holders as before.
     */
    private void addNodeColumn(Connection connection, long boundMillis) throws SQLException {
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

    /** The database's time in milliseconds. */
    long now(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(nowSql)) {
            row.next();
            return row.getLong(1);
        }
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
     * What nobody needs any more, so that the tables hold what is held now rather than every name
     * ever locked: holders whose lease ended before {@code before} (a JVM that died holding a lock
     * of a name never locked again), and names without a holder whose last fencing token was issued
     * before {@code before}. A name's row is made again by its next grant, and its next token is at
     * least the database's time in microseconds ({@link #nextToken}), above every token the old row
     * issued.
     *
     * <p>The sweep takes its locks in a grant's order, so that the two may wait for each other but
     * never deadlock: it reads what to remove without locking, then removes each ended holder by its
     * key, and each quiet name in a statement of its own that locks the name's row before it looks
     * at its holders, as a grant does. (One statement over every name and then the holders, in one transaction,
     * deadlocked with grants on MariaDB: the grant was chosen as the victim again on every retry
     * while the sweep ran.)
     *
     * @return rows removed
     */
    int sweep(JdbcTransactions transactions, long before) throws SQLException {
        List<String[]> ended = transactions.inTransaction(connection -> {
            List<String[]> rows = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement("SELECT name, holder FROM " + holders + " WHERE expires_at < ?")) {
                select.setLong(1, before);
                try (ResultSet row = select.executeQuery()) {
                    while (row.next()) {
                        rows.add(new String[] {row.getString(1), row.getString(2)});
                    }
                }
            }
            return rows;
        });
        int removed = 0;
        for (String[] holder : ended) {
            // By its key: one row locked, as a grant's own delete of its name's ended holders does.
            removed += transactions.inTransaction(connection -> {
                try (PreparedStatement drop = connection.prepareStatement("DELETE FROM " + holders
                        + " WHERE name = ? AND holder = ? AND expires_at < ?")) {
                    drop.setString(1, holder[0]);
                    drop.setString(2, holder[1]);
                    drop.setLong(3, before);
                    return drop.executeUpdate();
                }
            });
        }
        List<String> quiet = transactions.inTransaction(connection -> {
            List<String> names = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement("SELECT name FROM " + this.names + " WHERE token < ? AND NOT EXISTS "
                    + "(SELECT 1 FROM " + holders + " h WHERE h.name = " + this.names + ".name)")) {
                select.setLong(1, before * MICROS_PER_MILLI);
                try (ResultSet row = select.executeQuery()) {
                    while (row.next()) {
                        names.add(row.getString(1));
                    }
                }
            }
            return names;
        });
        for (String name : quiet) {
            // Still quiet when its row is locked: a grant under way has set a newer token or inserted its holder.
            removed += transactions.inTransaction(connection -> {
                try (PreparedStatement drop = connection.prepareStatement("DELETE FROM " + names + " WHERE name = ? AND token < ? "
                        + "AND NOT EXISTS (SELECT 1 FROM " + holders + " h WHERE h.name = ?)")) {
                    drop.setString(1, name);
                    drop.setLong(2, before * MICROS_PER_MILLI);
                    drop.setString(3, name);
                    return drop.executeUpdate();
                }
            });
        }
        return removed;
    }

    /**
     * Deletes every holder of {@code name}, after locking its row as a grant does (so no grant of the
     * name runs meanwhile), for a forced release.
     *
     * @param onlyIfFenced delete nothing, and throw, if a holder whose lease is in force has no fencing token
     * @return the ids of the holders whose lease was in force; empty when nobody held the name
     * @throws IllegalStateException when {@code onlyIfFenced} and a holder is not fenced
     */
    List<StoredLock.Holder> endHolders(Connection connection, String name, boolean onlyIfFenced) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT token FROM " + names + " WHERE name = ? FOR UPDATE")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    return List.of();
                }
            }
        }
        List<StoredLock.Holder> ended = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT holder, token, node FROM " + holders
                + " WHERE name = ? AND expires_at > (" + nowExpression() + ") ORDER BY holder")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    if (onlyIfFenced && row.getLong(2) == 0) {
                        throw new IllegalStateException("holder " + row.getString(1) + " holds lock '" + name
                                + "' without a fencing token; it was left held");
                    }
                    ended.add(StoredLock.Holder.of(row.getString(1), row.getString(3)));
                }
            }
        }
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + holders + " WHERE name = ?")) {
            delete.setString(1, name);
            delete.executeUpdate();
        }
        return ended;
    }

    /**
     * The names under {@code namePrefix} with a holder whose lease has not ended, at most
     * {@code limit} of them in name order, each with its holders and the shortest lease left, in
     * the database's clock.
     *
     * @param ours what this JVM's holder ids start with
     */
    List<StoredLock> list(Connection connection, String namePrefix, int limit, String ours) throws SQLException {
        Map<String, List<StoredLock.Holder>> holdersByName = new LinkedHashMap<>();
        Map<String, Boolean> exclusive = new HashMap<>();
        Map<String, Long> leftByName = new HashMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT name, holder, mode, expires_at - (" + nowExpression()
                + "), node FROM " + holders + " WHERE name LIKE ? ESCAPE '!' AND expires_at > (" + nowExpression() + ") ORDER BY name, holder")) {
            select.setString(1, namePrefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%");
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    String name = row.getString(1);
                    if (!holdersByName.containsKey(name) && holdersByName.size() == limit) {
                        break;
                    }
                    holdersByName.computeIfAbsent(name, ignored -> new ArrayList<>())
                            .add(StoredLock.Holder.of(row.getString(2), row.getString(5)));
                    exclusive.merge(name, "X".equals(row.getString(3)), Boolean::logicalOr);
                    leftByName.merge(name, row.getLong(4), Math::min);
                }
            }
        }
        List<StoredLock> locks = new ArrayList<>(holdersByName.size());
        holdersByName.forEach((name, ids) -> locks.add(new StoredLock(name, exclusive.get(name) ? LockMode.EXCLUSIVE : LockMode.READ,
                ids, ids.stream().anyMatch(holder -> holder.id().startsWith(ours)), leftByName.get(name))));
        return locks;
    }

    private String nowExpression() {
        return nowSql.substring("SELECT ".length());
    }
}
