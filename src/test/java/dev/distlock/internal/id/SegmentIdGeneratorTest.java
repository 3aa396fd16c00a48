package dev.distlock.internal.id;

import dev.distlock.testing.IdRuns;

import dev.distlock.testing.SwitchableDataSource;

import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Segment ids over a real database: many refills on many threads, restarts, and callers that roll back. */
@Timeout(180)
class SegmentIdGeneratorTest {

    /** Small fixed ranges: many refills, each a real transaction. */
    private static final SegmentIdGenerator.Settings SMALL_RANGES =
            new SegmentIdGenerator.Settings(50, 50, 50, Duration.ofMinutes(1), Duration.ofSeconds(30));

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void idsIncreasePerThreadAndAreUniqueOnEightThreadsAcrossManyRefills(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        RecordingStore store = new RecordingStore(new JdbcSegmentStore(dataSource, tables.newSegmentTable(dataSource)), 0);
        int perThread = 2_500;   // 400 ranges
        try (SegmentIdGenerator generator = new SegmentIdGenerator("eight-threads", store, SMALL_RANGES)) {
            long[][] byThread = IdRuns.onThreads(8, perThread, generator::nextId);

            for (long[] ids : byThread) {
                IdRuns.assertStrictlyIncreasing(ids);
            }
            long[] all = IdRuns.concat(byThread);
            assertEquals(0, IdRuns.duplicates(all));
            assertTrue(Arrays.stream(all).allMatch(id -> id > 0));
            assertTrue(store.leased().size() >= all.length / 50, "refills: " + store.leased().size());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void aRestartedGeneratorIssuesOnlyIdsAboveAllEarlierOnes(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        String table = tables.newSegmentTable(dataSource);
        long[] beforeRestart = new long[1_025];   // stops in the middle of a range
        try (SegmentIdGenerator first = new SegmentIdGenerator("restart", new JdbcSegmentStore(dataSource, table), SMALL_RANGES)) {
            for (int i = 0; i < beforeRestart.length; i++) {
                beforeRestart[i] = first.nextId();
            }
        }
        long[] afterRestart = new long[1_000];
        try (SegmentIdGenerator second = new SegmentIdGenerator("restart", new JdbcSegmentStore(dataSource, table), SMALL_RANGES)) {
            for (int i = 0; i < afterRestart.length; i++) {
                afterRestart[i] = second.nextId();
            }
        }

        long highestBefore = Arrays.stream(beforeRestart).max().orElseThrow();
        assertTrue(afterRestart[0] > highestBefore, "first id after the restart " + afterRestart[0] + " is above " + highestBefore);
        IdRuns.assertStrictlyIncreasing(IdRuns.concat(beforeRestart, afterRestart));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void aRolledBackCallerTransactionDoesNotUnleaseRanges(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        String segments = tables.newSegmentTable(dataSource);
        String orders = tables.name(dataSource, "orders");
        try (Connection setup = dataSource.getConnection(); Statement create = setup.createStatement()) {
            create.execute("CREATE TABLE " + orders + " (id BIGINT NOT NULL PRIMARY KEY)");
        }
        SwitchableDataSource watched = new SwitchableDataSource(dataSource);
        long[] issued = new long[500];   // 10 ranges of 50
        try (SegmentIdGenerator generator = new SegmentIdGenerator("rollback", new JdbcSegmentStore(watched, segments), SMALL_RANGES);
             Connection caller = dataSource.getConnection()) {
            caller.setAutoCommit(false);
            try (PreparedStatement insert = caller.prepareStatement("INSERT INTO " + orders + " (id) VALUES (?)")) {
                for (int i = 0; i < issued.length; i++) {
                    issued[i] = generator.nextId();
                    insert.setLong(1, issued[i]);
                    insert.executeUpdate();
                }
            }
            caller.rollback();

            assertEquals(0, count(dataSource, orders), "the caller's work was rolled back");
            assertFalse(watched.callers().contains(Thread.currentThread()), "ranges were leased on the generator's thread, "
                    + "never the caller's: " + watched.callers());
        }
        long highest = Arrays.stream(issued).max().orElseThrow();
        assertTrue(Tables.maxId(dataSource, segments, "rollback") >= highest,
                "every range handed out stays leased after the caller's rollback");
        try (SegmentIdGenerator afterwards = new SegmentIdGenerator("rollback", new JdbcSegmentStore(dataSource, segments), SMALL_RANGES)) {
            for (int i = 0; i < 500; i++) {
                long id = afterwards.nextId();
                assertTrue(id > highest, "id " + id + " after the rollback repeats none up to " + highest);
            }
        }
    }

    private static long count(DataSource dataSource, String table) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            row.next();
            return row.getLong(1);
        }
    }
}
