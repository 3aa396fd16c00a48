package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The range size follows the rate: ranges used up quickly grow, ranges that last long shrink. */
@Timeout(60)
class SegmentStepAdaptsTest {

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @Test
    void rangesUsedUpQuicklyGrow() throws Exception {
        SegmentIdGenerator.Settings settings = new SegmentIdGenerator.Settings(10, 10, 100_000, Duration.ofSeconds(30), Duration.ofSeconds(10));
        RecordingStore store = store();
        try (SegmentIdGenerator generator = new SegmentIdGenerator("grows", store, settings)) {
            for (int i = 0; i < 20_000; i++) {
                generator.nextId();
            }
            List<SegmentStore.Range> ranges = store.leased();
            assertTrue(generator.currentStep() >= 1_000, "step after 20,000 quick ids: " + generator.currentStep());
            assertTrue(ranges.get(ranges.size() - 1).size() > 10 * ranges.get(0).size(), "range sizes grew: " + sizes(ranges));
            for (int i = 1; i < ranges.size(); i++) {
                assertTrue(ranges.get(i).size() >= ranges.get(i - 1).size(), "never shrinks at a steady high rate: " + sizes(ranges));
            }
        }
    }

    @Test
    void rangesThatLastLongShrink() throws Exception {
        // A range should last 10 ms; at one id per millisecond or slower, 64 ids last far longer.
        SegmentIdGenerator.Settings settings = new SegmentIdGenerator.Settings(64, 4, 64, Duration.ofMillis(10), Duration.ofSeconds(10));
        RecordingStore store = store();
        try (SegmentIdGenerator generator = new SegmentIdGenerator("shrinks", store, settings)) {
            for (int i = 0; i < 200; i++) {
                generator.nextId();
                Thread.sleep(1);
            }
            assertTrue(generator.currentStep() < 64, "step after slow use: " + generator.currentStep() + ", ranges " + sizes(store.leased()));
        }
    }

    private RecordingStore store() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        return new RecordingStore(new JdbcSegmentStore(h2, tables.newSegmentTable(h2)), 0);
    }

    private static List<Long> sizes(List<SegmentStore.Range> ranges) {
        return ranges.stream().map(SegmentStore.Range::size).toList();
    }
}
