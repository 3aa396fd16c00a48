package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A grant decision on PostgreSQL in one statement, run in auto-commit mode: one round trip and one
 * commit, where {@link LockTables#grantInTransaction} takes a transaction of five or six.
 *
 * <p>The statement's common table expressions, all on one snapshot taken when the statement starts:
 * read the name's row ({@code seen}); delete the name's holders whose lease has ended in the
 * database's clock ({@code ended}); look for a holder that excludes this one among the rest
 * ({@code blocking}); if there is none, move the name's token on ({@code bumped}) or create the
 * name's row ({@code made}), and insert the holder's row with the new token ({@code held}).
 *
 * <p>Why this is safe under READ COMMITTED, where a statement that waits for a row lock goes on with
 * the snapshot it started with and so does not see the holders inserted by whoever it waited for:
 * <ul>
 *   <li>Every grant changes the name's row: its token moves on by one, or for a fenced lock to at
 *       least the database's time in microseconds. The update is made only where the token is still
 *       the one the snapshot saw; after waiting for another grant of the name, PostgreSQL checks that
 *       condition again on the row as that grant committed it, finds the token moved, and updates
 *       nothing. The statement then grants nothing and says it was not blocked: the decision is made
 *       again at once on a new snapshot, which sees the other grant's holder. A name's row deleted
 *       meanwhile (the sweep) is not updated either; one created meanwhile makes {@code made}'s
 *       insert conflict and do nothing. So a grant's decision stands only if no other grant of the
 *       name committed after its snapshot: grants of one name are serialized on its row, as
 *       {@code SELECT ... FOR UPDATE} serializes them in the transaction.</li>
 *   <li>A holder whose lease looked ended in the snapshot may have been renewed since. The delete
 *       of ended holders checks each row again after any wait, as the update does, and leaves a
 *       renewed one; only holders the statement itself deleted are left out of {@code blocking}, so
 *       a renewed holder still blocks, and a renewal that comes after the delete finds no row and
 *       reports the lease lost. A holder released meanwhile still blocks this decision: the waiter
 *       polls again.</li>
 *   <li>The locks are taken in one order: the ended holders' rows, then the name's row. A forced
 *       release takes the name's row first; where the two meet on an ended holder, PostgreSQL ends
 *       one of them as a deadlock and it runs again.</li>
 * </ul>
 * Every node granting on a set of tables must decide this way: a grant of an earlier version, a
 * transaction, locks an unfenced name's row without changing it, which this statement's check
 * cannot see.
 * The token of an unfenced grant is not given out (its lease has token 0); moving it on by one keeps
 * every fenced token above every earlier one, and keeps a name without fenced grants below the
 * sweep's bound, as before.
 */
final class PostgresGrant {

    /** Decisions made again at once after losing a race with other grants, before the waiter polls. */
    private static final int MAX_RACES_LOST = 16;
    private static final long MICROS_PER_MILLI = 1_000;

    private final String exclusiveSql;
    private final String sharedSql;
    private final String fencedSql;

    /** The name of this server, written beside each holder; null for none. */
    private final String node;

    PostgresGrant(String holders, String names, String nowExpression, String node) {
        this.node = node;
        this.exclusiveSql = sql(holders, names, nowExpression, true, false);
        this.sharedSql = sql(holders, names, nowExpression, false, false);
        this.fencedSql = sql(holders, names, nowExpression, true, true);
    }

    private static String sql(String holders, String names, String nowExpression, boolean exclusive, boolean fenced) {
        String now = "(SELECT now FROM clock)";
        String firstToken = fenced ? now + " * " + MICROS_PER_MILLI : "0";
        String nextToken = fenced ? "GREATEST(token + 1, " + now + " * " + MICROS_PER_MILLI + ")" : "token + 1";
        return "WITH clock AS (SELECT " + nowExpression + " AS now), "
                + "seen AS (SELECT token FROM " + names + " WHERE name = ?), "
                + "ended AS (DELETE FROM " + holders + " WHERE name = ? AND expires_at <= " + now + " RETURNING holder), "
                + "blocking AS (SELECT 1 FROM " + holders + " WHERE name = ?" + (exclusive ? "" : " AND mode = 'X'")
                + " AND holder NOT IN (SELECT holder FROM ended) LIMIT 1), "
                + "bumped AS (UPDATE " + names + " SET token = " + nextToken + " WHERE name = ? AND token = (SELECT token FROM seen)"
                + " AND NOT EXISTS (SELECT 1 FROM blocking) RETURNING token), "
                + "made AS (INSERT INTO " + names + " (name, token) SELECT ?, " + firstToken
                + " WHERE NOT EXISTS (SELECT 1 FROM seen) AND NOT EXISTS (SELECT 1 FROM blocking)"
                + " ON CONFLICT (name) DO NOTHING RETURNING token), "
                + "held AS (INSERT INTO " + holders + " (name, holder, mode, expires_at, token, node) SELECT ?, ?, '"
                + (exclusive ? "X" : "R") + "', " + now + " + ?, " + (fenced ? "token" : "0") + ", CAST(? AS VARCHAR)"
                + " FROM (SELECT token FROM bumped UNION ALL SELECT token FROM made) granted RETURNING token) "
                + "SELECT (SELECT token FROM held), EXISTS (SELECT 1 FROM blocking)";
    }

    /**
     * One grant decision: the token (0 unfenced) if granted, {@code null} if another holder excludes
     * this one. {@code connection} may be in auto-commit mode.
     */
    Long grant(Connection connection, String name, String holder, boolean exclusive, long leaseMillis, boolean fenced)
            throws SQLException {
        String sql = fenced ? fencedSql : exclusive ? exclusiveSql : sharedSql;
        for (int race = 0; race < MAX_RACES_LOST; race++) {
            try (PreparedStatement grant = connection.prepareStatement(sql)) {
                for (int i = 1; i <= 6; i++) {
                    grant.setString(i, name);
                }
                grant.setString(7, holder);
                grant.setLong(8, leaseMillis);
                grant.setString(9, node);
                try (ResultSet row = grant.executeQuery()) {
                    row.next();
                    long token = row.getLong(1);
                    if (!row.wasNull()) {
                        return token;
                    }
                    if (row.getBoolean(2)) {
                        return null;
                    }
                }
            }
            // Another grant of the name committed after this statement's snapshot: decide again on a new one.
        }
        return null;
    }
}
