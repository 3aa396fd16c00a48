package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.spi.jdbc.Transactions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The spare ranges of the segment generators, in the table {@code <segment table>_spare}: one row
 * per range a generator leased, stopped issuing at its close and never issued.
 *
 * <p>Keeping is an insert. Taking is a read of the lowest range above a bound and a delete of
 * exactly that row, which must report one row deleted: of nodes racing for one range, only the one
 * whose delete removed it owns it; the others look again. Each attempt is a committed transaction
 * of its own, so that a look again sees what the others committed (InnoDB's repeatable read would
 * show the same row in the same transaction).
 */
final class JdbcSpareRanges {

    static final String SUFFIX = "_spare";
    /** Looks after this many rows that another node took first: a new lease is as good and never loops. */
    private static final int MAX_TAKEN_BY_OTHERS = 20;

    private final DataSource dataSource;
    private final String table;

    JdbcSpareRanges(DataSource dataSource, String segmentTable) {
        this.dataSource = dataSource;
        this.table = segmentTable + SUFFIX;
    }

    String table() {
        return table;
    }

    String createSql() {
        return "CREATE TABLE IF NOT EXISTS " + table + " ("
                + "name VARCHAR(100) NOT NULL, "
                + "first_id BIGINT NOT NULL, "
                + "last_id BIGINT NOT NULL, "
                + "PRIMARY KEY (name, first_id))";
    }

    String probeSql() {
        return "SELECT name, first_id, last_id FROM " + table + " WHERE 1 = 0";
    }

    void keep(String name, List<SegmentStore.Range> spares) throws SQLException {
        if (spares.isEmpty()) {
            return;
        }
        Transactions.run(dataSource, connection -> {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO " + table + " (name, first_id, last_id) VALUES (?, ?, ?)")) {
                for (SegmentStore.Range spare : spares) {
                    insert.setString(1, name);
                    insert.setLong(2, spare.first());
                    insert.setLong(3, spare.last());
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            return null;
        });
    }

    Optional<SegmentStore.Range> take(String name, long above) throws SQLException {
        for (int attempt = 0; attempt < MAX_TAKEN_BY_OTHERS; attempt++) {
            Attempt taking = Transactions.run(dataSource, connection -> takeInTransaction(connection, name, above));
            if (!taking.lostRace()) {
                return taking.taken();
            }
        }
        return Optional.empty();
    }

    /** The range taken, or none kept; or another node deleted the lowest row first. */
    private record Attempt(Optional<SegmentStore.Range> taken, boolean lostRace) {
    }

    private Attempt takeInTransaction(Connection connection, String name, long above) throws SQLException {
        SegmentStore.Range lowest;
        try (PreparedStatement select = connection.prepareStatement("SELECT first_id, last_id FROM " + table
                + " WHERE name = ? AND first_id = (SELECT MIN(first_id) FROM " + table + " WHERE name = ? AND first_id > ?)")) {
            select.setString(1, name);
            select.setString(2, name);
            select.setLong(3, above);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    return new Attempt(Optional.empty(), false);
                }
                lowest = new SegmentStore.Range(row.getLong(1), row.getLong(2));
            }
        }
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM " + table + " WHERE name = ? AND first_id = ? AND last_id = ?")) {
            delete.setString(1, name);
            delete.setLong(2, lowest.first());
            delete.setLong(3, lowest.last());
            boolean deletedHere = delete.executeUpdate() == 1;
            return new Attempt(deletedHere ? Optional.of(lowest) : Optional.empty(), !deletedHere);
        }
    }
}
