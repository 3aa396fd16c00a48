package dev.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes from the lock tables ({@link LockTables}) what nobody needs any more, so that they hold
 * what is held now rather than every name ever locked. Apart from the grant's statements because it
 * works over every name at once, in many short transactions of its own, in an order chosen so that
 * it never deadlocks with a grant.
 */
final class TableSweep {

    private TableSweep() {
    }

    /**
     * Holders whose lease ended before {@code before} (a JVM that died holding a lock of a name
     * never locked again), and names without a holder whose last fencing token was issued before
     * {@code before}. A name's row is made again by its next grant, and its next token is at least
     * the database's time in microseconds ({@link LockTables#grantInTransaction}), above every token
     * the old row issued.
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
    static int sweep(LockTables tables, JdbcTransactions transactions, long before) throws SQLException {
        String holders = tables.holders;
        String names = tables.names;
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
            List<String> quietNames = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement("SELECT name FROM " + names + " WHERE token < ? AND NOT EXISTS "
                    + "(SELECT 1 FROM " + holders + " h WHERE h.name = " + names + ".name)")) {
                select.setLong(1, before * LockTables.MICROS_PER_MILLI);
                try (ResultSet row = select.executeQuery()) {
                    while (row.next()) {
                        quietNames.add(row.getString(1));
                    }
                }
            }
            return quietNames;
        });
        for (String name : quiet) {
            // Still quiet when its row is locked: a grant under way has set a newer token or inserted its holder.
            removed += transactions.inTransaction(connection -> {
                try (PreparedStatement drop = connection.prepareStatement("DELETE FROM " + names + " WHERE name = ? AND token < ? "
                        + "AND NOT EXISTS (SELECT 1 FROM " + holders + " h WHERE h.name = ?)")) {
                    drop.setString(1, name);
                    drop.setLong(2, before * LockTables.MICROS_PER_MILLI);
                    drop.setString(3, name);
                    return drop.executeUpdate();
                }
            });
        }
        return removed;
    }
}
