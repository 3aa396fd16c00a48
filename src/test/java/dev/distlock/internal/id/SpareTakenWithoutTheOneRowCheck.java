package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.spi.jdbc.Transactions;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Optional;

/**
 * The twin of {@link JdbcSegmentStore}'s spare taking with its protection removed: it deletes the
 * lowest spare it read and takes it whether or not its delete removed the row. Exists to show that
 * the race tests catch what the check prevents; never use it otherwise.
 */
final class SpareTakenWithoutTheOneRowCheck implements SegmentStore {

    private final JdbcSegmentStore store;
    private final DataSource dataSource;
    private final String spareTable;

    SpareTakenWithoutTheOneRowCheck(DataSource dataSource, String table) {
        this.store = new JdbcSegmentStore(dataSource, table);
        this.dataSource = dataSource;
        this.spareTable = table + JdbcSpareRanges.SUFFIX;
    }

    @Override
    public Range lease(String name, long step) throws Exception {
        return store.lease(name, step);
    }

    @Override
    public void keepSpares(String name, List<Range> spares) throws Exception {
        store.keepSpares(name, spares);
    }

    @Override
    public Optional<Range> takeSpare(String name, long above) throws Exception {
        return Transactions.run(dataSource, connection -> {
            Range lowest;
            try (PreparedStatement select = connection.prepareStatement("SELECT first_id, last_id FROM " + spareTable
                    + " WHERE name = ? AND first_id > ? ORDER BY first_id")) {
                select.setString(1, name);
                select.setLong(2, above);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    lowest = new Range(row.getLong(1), row.getLong(2));
                }
            }
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + spareTable + " WHERE name = ? AND first_id = ?")) {
                delete.setString(1, name);
                delete.setLong(2, lowest.first());
                delete.executeUpdate();   // the missing check: did this delete remove the row?
            }
            return Optional.of(lowest);
        });
    }
}
