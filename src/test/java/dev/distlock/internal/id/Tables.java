package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.testing.TestDatabases;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The segment tables a test made, dropped when it is done, and a look at their rows. */
public final class Tables {

    private record Made(DataSource dataSource, String table) {
    }

    private final List<Made> made = new ArrayList<>();

    /** A segment table of the test's own, created by a store as a node would; returns its name. */
    public String newSegmentTable(DataSource dataSource) throws SQLException {
        String table = segmentTableName(dataSource);
        new JdbcSegmentStore(dataSource, table).createTableIfAbsent();
        return table;
    }

    /** A segment table name whose table and spare table are dropped when the test is done; a store creates them. */
    String segmentTableName(DataSource dataSource) {
        return segmentTableName(dataSource, 0);
    }

    /** The same, padded to {@code length} characters. */
    String segmentTableName(DataSource dataSource, int length) {
        String unique = TestDatabases.uniqueTable("seg");
        String table = unique + "x".repeat(Math.max(0, length - unique.length()));
        made.add(new Made(dataSource, table));
        made.add(new Made(dataSource, table + JdbcSpareRanges.SUFFIX));
        return table;
    }

    /** The spare ranges kept for {@code name}, lowest first. */
    static List<SegmentStore.Range> spares(DataSource dataSource, String table, String name) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT first_id, last_id FROM " + table + JdbcSpareRanges.SUFFIX
                     + " WHERE name = ? ORDER BY first_id")) {
            select.setString(1, name);
            List<SegmentStore.Range> spares = new ArrayList<>();
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    spares.add(new SegmentStore.Range(row.getLong(1), row.getLong(2)));
                }
            }
            return spares;
        }
    }

    /** A table name dropped when the test is done; the caller creates it. */
    String name(DataSource dataSource, String base) {
        String table = TestDatabases.uniqueTable(base);
        made.add(new Made(dataSource, table));
        return table;
    }

    /** The highest id leased so far for {@code name}, as the database has it committed. */
    static long maxId(DataSource dataSource, String table, String name) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT max_id FROM " + table + " WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new AssertionError("no row for " + name + " in " + table);
                }
                return row.getLong(1);
            }
        }
    }

    public void dropAll() throws SQLException {
        SQLException failure = null;
        for (Made table : made) {
            try {
                TestDatabases.dropTable(table.dataSource, table.table);
            } catch (SQLException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        made.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
