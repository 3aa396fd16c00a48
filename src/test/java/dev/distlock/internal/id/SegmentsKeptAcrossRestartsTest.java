package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.testing.IdRuns;

import dev.distlock.id.IdGenerationException;
import dev.distlock.testing.SwitchableDataSource;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An orderly close keeps the ids a generator leased and did not issue; the next start, here or on
 * another node, issues them before it leases more. A crash or a close the store does not answer
 * loses them: a gap, never a repeat.
 */
@Timeout(120)
class SegmentsKeptAcrossRestartsTest {

    private static final SegmentIdGenerator.Settings DEFAULTS = SegmentIdGenerator.Settings.defaults();

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void aCloseAfterTenOfAThousandIdsLetsTheNextStartContinueAtEleven(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        String table = tables.newSegmentTable(dataSource);
        long[] before;
        try (SegmentIdGenerator first = new SegmentIdGenerator("kept", new JdbcSegmentStore(dataSource, table), DEFAULTS)) {
            before = issue(first, 10);
        }
        assertEquals(List.of(new SegmentStore.Range(11, 1_000)), Tables.spares(dataSource, table, "kept"));

        long[] after;
        try (SegmentIdGenerator second = new SegmentIdGenerator("kept", new JdbcSegmentStore(dataSource, table), DEFAULTS)) {
            after = issue(second, 1_500);
        }
        assertArrayEquals(LongStream.rangeClosed(1, 1_510).toArray(), IdRuns.concat(before, after),
                "ids 1 to 1,510 without a gap: the spare 11..1000, then a new lease from 1001");
    }

    @Test
    void anUnusedNextRangeIsKeptToo() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        String table = tables.newSegmentTable(h2);
        long[] before;
        try (SegmentIdGenerator first = new SegmentIdGenerator("next-kept", new JdbcSegmentStore(h2, table), DEFAULTS)) {
            before = issue(first, 500);   // past a tenth: the next range 1001..2000 is leased
            awaitMaxId(h2, table, "next-kept", 2_000);
        }
        assertEquals(List.of(new SegmentStore.Range(501, 1_000), new SegmentStore.Range(1_001, 2_000)),
                Tables.spares(h2, table, "next-kept"));

        long[] after;
        try (SegmentIdGenerator second = new SegmentIdGenerator("next-kept", new JdbcSegmentStore(h2, table), DEFAULTS)) {
            after = issue(second, 2_000);
        }
        assertArrayEquals(LongStream.rangeClosed(1, 2_500).toArray(), IdRuns.concat(before, after));
    }

    @Test
    void aNextRangeStillBeingLeasedAtCloseIsKeptWhenItArrives() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        String table = tables.newSegmentTable(h2);
        RecordingStore slow = new RecordingStore(new JdbcSegmentStore(h2, table), 300);
        long[] before;
        try (SegmentIdGenerator first = new SegmentIdGenerator("in-flight", slow, DEFAULTS)) {
            before = issue(first, 100);   // the hundredth id starts the 300 ms lease of 1001..2000
        }
        assertEquals(2, slow.leaseCount(), "close waited for the lease in flight");
        assertEquals(List.of(new SegmentStore.Range(101, 1_000), new SegmentStore.Range(1_001, 2_000)),
                Tables.spares(h2, table, "in-flight"));
        try (SegmentIdGenerator second = new SegmentIdGenerator("in-flight", new JdbcSegmentStore(h2, table), DEFAULTS)) {
            assertArrayEquals(LongStream.rangeClosed(1, 2_100).toArray(), IdRuns.concat(before, issue(second, 2_000)));
        }
    }

    @Test
    void nextIdAfterCloseFailsAndServesNothingKept() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        String table = tables.newSegmentTable(h2);
        SegmentIdGenerator generator = new SegmentIdGenerator("after-close", new JdbcSegmentStore(h2, table), DEFAULTS);
        issue(generator, 500);
        awaitMaxId(h2, table, "after-close", 2_000);
        generator.close();

        IdGenerationException closed = assertThrows(IdGenerationException.class, generator::nextId,
                "neither the rest of 1..1000 nor the kept next range 1001..2000");
        assertTrue(closed.getMessage().contains("is closed"), closed::getMessage);
        generator.close();
        assertEquals(List.of(new SegmentStore.Range(501, 1_000), new SegmentStore.Range(1_001, 2_000)),
                Tables.spares(h2, table, "after-close"), "kept once, untouched");
    }

    @Test
    void aCrashLosesTheRangeAndTheNextStartLeasesAboveIt() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        String table = tables.newSegmentTable(h2);
        SwitchableDataSource crashing = new SwitchableDataSource(h2);
        SegmentIdGenerator crashed = new SegmentIdGenerator("crash", new JdbcSegmentStore(crashing, table), DEFAULTS);
        long[] before = issue(crashed, 10);
        // Crashed: never closed, nothing kept.

        long[] after;
        try (SegmentIdGenerator restarted = new SegmentIdGenerator("crash", new JdbcSegmentStore(h2, table), DEFAULTS)) {
            after = issue(restarted, 10);
        }
        assertEquals(1_001, after[0], "the crashed range 1..1000 is lost, not repeated");
        IdRuns.assertStrictlyIncreasing(IdRuns.concat(before, after));

        crashing.down();
        crashed.close();   // only to stop its thread; the store is gone for it, so it keeps nothing
        assertEquals(List.of(new SegmentStore.Range(1_011, 2_000)), Tables.spares(h2, table, "crash"),
                "only what the restarted generator left");
    }

    @Test
    void aCloseWhoseStoreIsDownLosesTheRestAndNothingRepeats() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        String table = tables.newSegmentTable(h2);
        SwitchableDataSource store = new SwitchableDataSource(h2);
        long[] before;
        SegmentIdGenerator first = new SegmentIdGenerator("down-at-close", new JdbcSegmentStore(store, table), DEFAULTS);
        before = issue(first, 10);
        store.down();
        long started = System.nanoTime();
        first.close();
        assertTrue(System.nanoTime() - started < SegmentIdGenerator.CLOSE_WAIT.toNanos(), "close does not hang on a store that refuses");
        assertEquals(1, store.refused(), "it tried to keep the rest");
        store.up();

        assertEquals(List.of(), Tables.spares(h2, table, "down-at-close"));
        try (SegmentIdGenerator second = new SegmentIdGenerator("down-at-close", new JdbcSegmentStore(h2, table), DEFAULTS)) {
            long[] after = issue(second, 10);
            assertEquals(1_001, after[0], "11..1000 were lost, never issued again");
            IdRuns.assertStrictlyIncreasing(IdRuns.concat(before, after));
        }
    }

    @Test
    void aGeneratorTakesOnlySparesAboveItsOwnIds() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        String table = tables.newSegmentTable(h2);
        SegmentIdGenerator.Settings small = new SegmentIdGenerator.Settings(100, 100, 100, Duration.ofMinutes(5), Duration.ofSeconds(10));
        SegmentIdGenerator low = new SegmentIdGenerator("above", new JdbcSegmentStore(h2, table), small);
        low.nextId();   // 1..100
        try (SegmentIdGenerator high = new SegmentIdGenerator("above", new JdbcSegmentStore(h2, table), small)) {
            long[] ids = issue(high, 50);   // 101..200, and 201..300 leased ahead
            low.close();   // keeps 2..100, below everything high holds
            ids = IdRuns.concat(ids, issue(high, 200));

            IdRuns.assertStrictlyIncreasing(ids);
            assertEquals(List.of(new SegmentStore.Range(2, 100)), Tables.spares(h2, table, "above"), "left for a generator below it");
        }
    }

    @Test
    void aSmallSpareDoesNotGrowTheStep() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        String table = tables.newSegmentTable(h2);
        try (SegmentIdGenerator first = new SegmentIdGenerator("small-spare", new JdbcSegmentStore(h2, table), DEFAULTS)) {
            issue(first, 990);
            awaitMaxId(h2, table, "small-spare", 2_000);
        }
        RecordingStore store = new RecordingStore(new JdbcSegmentStore(h2, table), 0);
        try (SegmentIdGenerator second = new SegmentIdGenerator("small-spare", store, DEFAULTS)) {
            issue(second, 11);   // the 10 ids of 991..1000, used up at once, then 1001
            assertEquals(List.of(new SegmentStore.Range(991, 1_000), new SegmentStore.Range(1_001, 2_000)), store.sparesTaken());
            assertEquals(1_000, second.currentStep(), "10 ids used up in no time say nothing of the rate at 1,000 a step");
        }
    }

    static long[] issue(SegmentIdGenerator generator, int count) {
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = generator.nextId();
        }
        return ids;
    }

    /** Waits until the ranges up to {@code maxId} are leased (and so ready to serve as the next range). */
    static void awaitMaxId(DataSource dataSource, String table, String name, long maxId) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Tables.maxId(dataSource, table, name) < maxId) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("ids up to " + maxId + " were not leased within 10 s");
            }
            Thread.sleep(5);
        }
        Thread.sleep(50);   // the lease is committed; let the generator's thread hand it over
    }
}
