package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A kept spare range goes to one node only, however many start at once: the node whose delete
 * removed its row. The twin without that check hands the same range to both.
 */
@Timeout(120)
class SpareGoesToExactlyOneNodeTest {

    private static final SegmentIdGenerator.Settings DEFAULTS = SegmentIdGenerator.Settings.defaults();

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void ofTwoGeneratorsStartingOnOneSpareExactlyOneIssuesIt(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        String table = tables.newSegmentTable(dataSource);
        leaveSpareAfterTenIds(dataSource, table);

        List<Long> firstIds = startTwoTogether(new RacingDeletes(dataSource, 2), racing -> new JdbcSegmentStore(racing, table));

        assertEquals(List.of(11L, 1_001L), firstIds, "one took the spare 11..1000, the other leased 1001..2000");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void twinWithoutTheOneRowCheckBothWouldIssueTheSpare(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        String table = tables.newSegmentTable(dataSource);
        leaveSpareAfterTenIds(dataSource, table);

        List<Long> firstIds = startTwoTogether(new RacingDeletes(dataSource, 2), racing -> new SpareTakenWithoutTheOneRowCheck(racing, table));

        assertEquals(List.of(11L, 11L), firstIds, "both read the spare and deleted it; without the check both issue id 11");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void fourNodesTakingSparesAsFastAsTheyCanTakeEachExactlyOnce(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        String table = tables.newSegmentTable(dataSource);
        List<SegmentStore.Range> kept = new ArrayList<>();
        for (long first = 1; first < 400; first += 10) {
            kept.add(new SegmentStore.Range(first, first + 4));
        }
        new JdbcSegmentStore(dataSource, table).keepSpares("fast", kept);

        int nodes = 4;
        CyclicBarrier together = new CyclicBarrier(nodes);
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        List<SegmentStore.Range> taken = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                JdbcSegmentStore store = new JdbcSegmentStore(database.dataSource(), table);
                runs.add(pool.submit(() -> {
                    together.await();
                    for (Optional<SegmentStore.Range> spare = store.takeSpare("fast", 0); spare.isPresent(); spare = store.takeSpare("fast", 0)) {
                        taken.add(spare.get());
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdownNow();
        }
        List<SegmentStore.Range> sorted = new ArrayList<>(taken);
        sorted.sort(Comparator.comparingLong(SegmentStore.Range::first));
        assertEquals(kept.size(), sorted.size(), "taken " + sorted.size() + " times, kept " + kept.size());
        assertEquals(kept, sorted, "every spare taken, none twice");
    }

    private static void leaveSpareAfterTenIds(DataSource dataSource, String table) {
        try (SegmentIdGenerator first = new SegmentIdGenerator("one-spare", new JdbcSegmentStore(dataSource, table), DEFAULTS)) {
            for (int i = 0; i < 10; i++) {
                first.nextId();
            }
        }
    }

    /** Two generators, each with a store of its own over the racing data source, issue their first id at once. */
    private static List<Long> startTwoTogether(RacingDeletes racing, Function<DataSource, SegmentStore> storeOver) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<SegmentIdGenerator> generators = List.of(
                new SegmentIdGenerator("one-spare", storeOver.apply(racing), DEFAULTS),
                new SegmentIdGenerator("one-spare", storeOver.apply(racing), DEFAULTS));
        try {
            List<Future<Long>> firsts = new ArrayList<>();
            for (SegmentIdGenerator generator : generators) {
                firsts.add(pool.submit(generator::nextId));
            }
            List<Long> ids = new ArrayList<>();
            for (Future<Long> first : firsts) {
                ids.add(first.get());
            }
            Collections.sort(ids);
            return ids;
        } finally {
            generators.forEach(SegmentIdGenerator::close);
            pool.shutdownNow();
        }
    }
}
