package dev.distlock.internal.id;

import dev.distlock.testing.IdRuns;

import dev.distlock.testing.SwitchableDataSource;

import dev.distlock.id.IdGenerationException;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The id store going down while the next range is being fetched, and coming back. */
@Timeout(60)
class SegmentStoreOutageTest {

    private static final int STEP = 100;
    private static final SegmentIdGenerator.Settings FIXED_STEP =
            new SegmentIdGenerator.Settings(STEP, STEP, STEP, Duration.ofMinutes(1), Duration.ofSeconds(10));

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @Test
    void theCurrentRangeKeepsServingThenAClearErrorThenRecovery() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        SwitchableDataSource store = new SwitchableDataSource(h2);
        List<Long> ids = new ArrayList<>();
        try (SegmentIdGenerator generator = new SegmentIdGenerator("outage", new JdbcSegmentStore(store, tables.newSegmentTable(h2)), FIXED_STEP)) {
            ids.add(generator.nextId());
            store.down();
            while (ids.size() < STEP / 2) {
                ids.add(generator.nextId());
            }
            awaitRefused(store);   // the prefetch at a tenth of the range has failed by now

            while (ids.size() < STEP) {
                ids.add(generator.nextId());
            }
            IdGenerationException dry = assertThrows(IdGenerationException.class, generator::nextId);
            assertTrue(dry.getMessage().contains("'outage'") && dry.getMessage().contains("has used up its range"), dry::getMessage);
            SQLException cause = assertInstanceOf(SQLException.class, dry.getCause(), "the store's own error is the cause");
            assertEquals(SwitchableDataSource.DOWN_MESSAGE, cause.getMessage());
            assertThrows(IdGenerationException.class, generator::nextId, "still dry while the store is down");

            store.up();
            long recovered = generator.nextId();
            assertTrue(recovered > STEP, "after recovery, a new range: " + recovered);
            ids.add(recovered);
        }
        assertEquals(STEP, ids.stream().filter(id -> id <= STEP).distinct().count(), "the whole first range was served while the store was down");
        IdRuns.assertStrictlyIncreasing(ids.stream().mapToLong(Long::longValue).toArray());
    }

    private static void awaitRefused(SwitchableDataSource store) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (store.refused() == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no prefetch was tried while the store was down");
            }
            Thread.sleep(5);
        }
    }
}
