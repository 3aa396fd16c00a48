package dev.distlock.core.id;

import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        String table = tables.name(dataSource, "seg");
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
            String table = tables.name(database.dataSource(), "seg");
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
}
