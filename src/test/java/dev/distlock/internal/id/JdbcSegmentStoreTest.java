package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The segment table in H2, and in PostgreSQL and MariaDB when the environment names them. */
@Timeout(120)
class JdbcSegmentStoreTest {

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void createsItsTableIfAbsentAndLeavesAnExistingOneAlone(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        String table = tables.segmentTableName(dataSource);
        JdbcSegmentStore store = new JdbcSegmentStore(dataSource, table);

        store.createTableIfAbsent();
        store.lease("kept", 10);
        store.createTableIfAbsent();

        assertEquals(new SegmentStore.Range(11, 20), store.lease("kept", 10), "the existing table and its row stay");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void nodesStartingTogetherAllCreateTheTableWithoutError(Database database) throws Exception {
        int nodes = 4;
        for (int round = 0; round < 10; round++) {
            String table = tables.segmentTableName(database.dataSource());
            CyclicBarrier together = new CyclicBarrier(nodes);
            ExecutorService pool = Executors.newFixedThreadPool(nodes);
            try {
                List<Future<SegmentStore.Range>> leases = new ArrayList<>();
                for (int n = 0; n < nodes; n++) {
                    JdbcSegmentStore store = new JdbcSegmentStore(database.dataSource(), table);
                    leases.add(pool.submit(() -> {
                        together.await();
                        store.createTableIfAbsent();
                        return store.lease("fresh", 10);
                    }));
                }
                for (Future<SegmentStore.Range> lease : leases) {
                    lease.get();
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void leasesConsecutiveRangesThatNeverOverlap(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        JdbcSegmentStore store = new JdbcSegmentStore(dataSource, tables.newSegmentTable(dataSource));
        long[] steps = {1, 10, 7, 1_000, 3};
        long expectedFirst = 1;
        for (long step : steps) {
            SegmentStore.Range range = store.lease("consecutive", step);
            assertEquals(new SegmentStore.Range(expectedFirst, expectedFirst + step - 1), range);
            expectedFirst = range.last() + 1;
        }
        assertEquals(new SegmentStore.Range(1, 5), store.lease("another-name", 5), "each name has its own row");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void storesRacingToCreateTheFirstRowAllSucceedWithDisjointRanges(Database database) throws Exception {
        String table = tables.newSegmentTable(database.dataSource());
        int stores = 4;
        int rounds = 20;
        ExecutorService pool = Executors.newFixedThreadPool(stores);
        try {
            for (int round = 0; round < rounds; round++) {
                String name = "race-" + round;
                CyclicBarrier together = new CyclicBarrier(stores);
                List<Future<SegmentStore.Range>> leases = new ArrayList<>();
                for (int s = 0; s < stores; s++) {
                    // A store and a data source per node, as separate JVMs would have.
                    JdbcSegmentStore store = new JdbcSegmentStore(database.dataSource(), table);
                    leases.add(pool.submit(() -> {
                        together.await();
                        return store.lease(name, 100);
                    }));
                }
                List<SegmentStore.Range> ranges = new ArrayList<>();
                for (Future<SegmentStore.Range> lease : leases) {
                    ranges.add(lease.get());
                }
                ranges.sort(Comparator.comparingLong(SegmentStore.Range::first));
                for (int i = 0; i < ranges.size(); i++) {
                    assertEquals(new SegmentStore.Range(1 + 100L * i, 100L * (i + 1)), ranges.get(i),
                            "round " + round + ": the " + stores + " ranges tile 1.." + 100 * stores + " without overlap: " + ranges);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void keptSparesAreTakenLowestFirstAboveTheBoundEachOnce(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        JdbcSegmentStore store = new JdbcSegmentStore(dataSource, tables.newSegmentTable(dataSource));
        store.keepSpares("kept", List.of(new SegmentStore.Range(20, 30), new SegmentStore.Range(5, 9)));
        store.keepSpares("other", List.of(new SegmentStore.Range(1, 3)));

        assertEquals(Optional.of(new SegmentStore.Range(20, 30)), store.takeSpare("kept", 5), "a range starting at the bound is skipped");
        assertEquals(Optional.empty(), store.takeSpare("kept", 30), "none above 30");
        assertEquals(Optional.of(new SegmentStore.Range(5, 9)), store.takeSpare("kept", 0), "the skipped one stayed for others");
        assertEquals(Optional.empty(), store.takeSpare("kept", 0), "each range is taken once");
        assertEquals(Optional.of(new SegmentStore.Range(1, 3)), store.takeSpare("other", 0), "each name has its own spares");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void theSpareTableIsCreatedWithTheFirstUseOfAStoreThatCreatesTables(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        SegmentStore store = JdbcSegmentStore.creatingTableOnFirstLease(dataSource, tables.segmentTableName(dataSource));

        assertEquals(Optional.empty(), store.takeSpare("first", 0), "a start looks for spares before it leases");
        store.keepSpares("first", List.of(store.lease("first", 10)));
        assertEquals(Optional.of(new SegmentStore.Range(1, 10)), store.takeSpare("first", 0));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void theLongestTableNameStillNamesAUsableSpareTable(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        String table = tables.segmentTableName(dataSource, JdbcSegmentStore.MAX_TABLE_LENGTH);
        JdbcSegmentStore store = new JdbcSegmentStore(dataSource, table);
        store.createTableIfAbsent();

        store.keepSpares("long", List.of(new SegmentStore.Range(7, 8)));
        assertEquals(new SegmentStore.Range(7, 8), Tables.spares(dataSource, table, "long").get(0), "'" + table + "_spare' is the table");
    }

    @Test
    void aTableNameTooLongForItsSpareTableIsRefusedNamingTheSetting() {
        String table = "t".repeat(JdbcSegmentStore.MAX_TABLE_LENGTH + 1);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new JdbcSegmentStore(Database.H2.dataSource(), table));
        assertTrue(refused.getMessage().contains("distlock.id.table") && refused.getMessage().contains(table + "_spare"), refused::getMessage);
        assertEquals(57, JdbcSegmentStore.MAX_TABLE_LENGTH, "PostgreSQL's 63 characters less '_spare'");
    }
}
