package dev.distlock.internal.id;

import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * How many ids an orderly restart skips: issue {@code k} ids, close, start again, and count the ids
 * between the last before and the first after. Before spares were kept, the rest of the range was
 * skipped, and the whole next range too once it had been leased ahead; now none is.
 */
@Timeout(60)
class IdsBurnedPerRestartTest {

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @ParameterizedTest(name = "step {0}, {1} ids before the restart")
    @CsvSource({"1000, 10", "1000, 500", "100000, 10", "100000, 50000"})
    void anOrderlyRestartBurnsNoId(long step, int issuedBefore) throws Exception {
        DataSource h2 = Database.H2.dataSource();
        long burned = burnedByRestart(h2, tables.segmentTableName(h2), step, issuedBefore);
        System.out.printf("ids burned by an orderly restart, step %,d, %,d ids issued before: %,d%n", step, issuedBefore, burned);
        assertEquals(0, burned);
    }

    /**
     * The ids between the last one issued before a close and the first after the next start, with
     * ranges of {@code step} (the step after it adapted up: the restart begins at the same size).
     * Past a tenth of the range it waits for the next range to be leased ahead, as a running node has it.
     */
    static long burnedByRestart(DataSource dataSource, String table, long step, int issuedBefore) throws Exception {
        new JdbcSegmentStore(dataSource, table).createTableIfAbsent();
        SegmentIdGenerator.Settings settings = new SegmentIdGenerator.Settings(step, Math.min(step, 1_000), Math.max(step, 1_000_000),
                Duration.ofMinutes(5), Duration.ofSeconds(10));
        long lastBefore = 0;
        try (SegmentIdGenerator before = new SegmentIdGenerator("restart", new JdbcSegmentStore(dataSource, table), settings)) {
            for (int i = 0; i < issuedBefore; i++) {
                lastBefore = before.nextId();
            }
            if (issuedBefore >= step / 10) {
                awaitLeasedAhead(dataSource, table, 2 * step);
            }
        }
        try (SegmentIdGenerator after = new SegmentIdGenerator("restart", new JdbcSegmentStore(dataSource, table), settings)) {
            return after.nextId() - lastBefore - 1;
        }
    }

    private static void awaitLeasedAhead(DataSource dataSource, String table, long maxId) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (maxId(dataSource, table) < maxId) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the next range was not leased within 10 s");
            }
            Thread.sleep(5);
        }
        Thread.sleep(50);   // committed; let the generator's thread hand it over
    }

    private static long maxId(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT max_id FROM " + table + " WHERE name = 'restart'");
             ResultSet row = select.executeQuery()) {
            return row.next() ? row.getLong(1) : 0;
        }
    }

    /** Runs the measure outside JUnit, e.g. against an earlier SegmentIdGenerator on the class path. */
    public static void main(String[] args) throws Exception {
        DataSource h2 = TestDatabases.dataSourceFor("jdbc:h2:mem:burned;DB_CLOSE_DELAY=-1");
        long[][] cases = {{1_000, 10}, {1_000, 500}, {100_000, 10}, {100_000, 50_000}};
        for (long[] measured : cases) {
            long burned = burnedByRestart(h2, TestDatabases.uniqueTable("seg"), measured[0], (int) measured[1]);
            System.out.printf("ids burned by an orderly restart, step %,d, %,d ids issued before: %,d%n", measured[0], measured[1], burned);
        }
    }
}
