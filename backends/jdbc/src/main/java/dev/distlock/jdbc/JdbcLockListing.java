package dev.distlock.jdbc;

import dev.distlock.LockMode;
import dev.distlock.spi.StoredLock;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the lock tables ({@link LockTables}) say is held, for an operator's inspection. Apart from
 * acquisition because it only reads, over many names, and gathers each name's holder rows into one
 * {@link StoredLock}; nothing here decides a grant.
 */
final class JdbcLockListing {

    private JdbcLockListing() {
    }

    /**
     * The names under {@code namePrefix} with a holder whose lease has not ended, at most
     * {@code limit} of them in name order, each with its holders and the shortest lease left, in
     * the database's clock.
     *
     * @param ours what this JVM's holder ids start with
     */
    static List<StoredLock> list(LockTables tables, Connection connection, String namePrefix, int limit, String ours)
            throws SQLException {
        String now = tables.nowExpression();
        Map<String, List<StoredLock.Holder>> holdersByName = new LinkedHashMap<>();
        Map<String, Boolean> exclusive = new HashMap<>();
        Map<String, Long> leftByName = new HashMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT name, holder, mode, expires_at - (" + now
                + "), node FROM " + tables.holders + " WHERE name LIKE ? ESCAPE '!' AND expires_at > (" + now + ") ORDER BY name, holder")) {
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
}
