package dev.distlock.jdbc;

import dev.distlock.spi.StoredLock;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * An operator's end of a lock in the lock tables ({@link LockTables}): every holder of one name goes,
 * whoever it is. Apart from the holder's own release because it deletes other JVMs' rows, and so must
 * be serialized with the name's grants as a grant is.
 */
final class JdbcForcedRelease {

    private JdbcForcedRelease() {
    }

    /**
     * Deletes every holder of {@code name}, after locking its row as a grant does (so no grant of the
     * name runs meanwhile).
     *
     * @param onlyIfFenced delete nothing, and throw, if a holder whose lease is in force has no fencing token
     * @return the ids of the holders whose lease was in force; empty when nobody held the name
     * @throws IllegalStateException when {@code onlyIfFenced} and a holder is not fenced
     */
    static List<StoredLock.Holder> end(LockTables tables, Connection connection, String name, boolean onlyIfFenced)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT token FROM " + tables.names + " WHERE name = ? FOR UPDATE")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    return List.of();
                }
            }
        }
        List<StoredLock.Holder> ended = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT holder, token, node FROM " + tables.holders
                + " WHERE name = ? AND expires_at > (" + tables.nowExpression() + ") ORDER BY holder")) {
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
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + tables.holders + " WHERE name = ?")) {
            delete.setString(1, name);
            delete.executeUpdate();
        }
        return ended;
    }
}
