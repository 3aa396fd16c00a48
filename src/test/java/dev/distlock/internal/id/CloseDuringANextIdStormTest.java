package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.testing.IdRuns;

import dev.distlock.id.IdGenerationException;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Close lands in the middle of eight threads calling {@code nextId()} as fast as they can: no id a
 * thread got is in a kept spare, and a new generator that issues every kept spare repeats none.
 * Small ranges make close land while the threads wait for a refill, large ones in a range in use.
 */
@Timeout(180)
class CloseDuringANextIdStormTest {

    private static final int THREADS = 8;
    private static final int ROUNDS = 10;

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @ParameterizedTest(name = "step {0}")
    @ValueSource(longs = {50, 1_000, 100_000})
    void noIdIssuedBeforeCloseIsKeptAndTheKeptOnesAreIssuedOnce(long step) throws Exception {
        DataSource h2 = Database.H2.dataSource();
        String table = tables.newSegmentTable(h2);
        SegmentIdGenerator.Settings fixed = new SegmentIdGenerator.Settings(step, step, step, Duration.ofMinutes(5), Duration.ofSeconds(30));
        long issuedInAll = 0;
        long keptInAll = 0;
        int rangesCut = 0;
        for (int round = 0; round < ROUNDS; round++) {
            String name = "storm-" + round;
            long[] issued = stormThenClose(new SegmentIdGenerator(name, new JdbcSegmentStore(h2, table), fixed));
            List<SegmentStore.Range> kept = Tables.spares(h2, table, name);
            Arrays.sort(issued);
            assertEquals(0, IdRuns.duplicates(issued), "round " + round);
            for (SegmentStore.Range spare : kept) {
                assertEquals(0, issuedWithin(issued, spare), "round " + round + ": ids issued before the close are in the kept " + spare);
            }

            long[] keptIds = kept.stream().flatMapToLong(range -> java.util.stream.LongStream.rangeClosed(range.first(), range.last())).toArray();
            long[] drained;
            try (SegmentIdGenerator next = new SegmentIdGenerator(name, new JdbcSegmentStore(h2, table), fixed)) {
                drained = SegmentsKeptAcrossRestartsTest.issue(next, keptIds.length);
            }
            assertArrayEquals(keptIds, drained, "round " + round + ": the next start issues exactly the kept ids, in order");
            assertEquals(0, IdRuns.duplicates(IdRuns.concat(issued, drained)), "round " + round);
            issuedInAll += issued.length;
            keptInAll += keptIds.length;
            rangesCut += kept.isEmpty() || kept.get(0).size() == step ? 0 : 1;
        }
        System.out.printf("close during a storm, step %,d: %,d ids issued in %d rounds, %,d kept at the closes and issued after; "
                + "%d closes cut a range in use%n", step, issuedInAll, ROUNDS, keptInAll, rangesCut);
        assertTrue(keptInAll > 0, "some closes landed in a range with ids left");
    }

    /** Eight threads issue until the generator is closed under them; every id they got. */
    private static long[] stormThenClose(SegmentIdGenerator generator) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS + 1);
        try {
            List<Future<long[]>> runs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                runs.add(pool.submit(() -> {
                    long[] ids = new long[1_024];
                    int count = 0;
                    start.await();
                    while (true) {
                        long id;
                        try {
                            id = generator.nextId();
                        } catch (IdGenerationException closed) {
                            if (!closed.getMessage().contains("is closed")) {
                                throw closed;
                            }
                            return Arrays.copyOf(ids, count);
                        }
                        if (count == ids.length) {
                            ids = Arrays.copyOf(ids, count * 2);
                        }
                        ids[count++] = id;
                        // Gives the other threads and close() a turn, so that close lands between any two ids.
                        Thread.yield();
                    }
                }));
            }
            start.await();
            Thread.sleep(ThreadLocalRandom.current().nextInt(5, 60));
            generator.close();
            long[][] byThread = new long[THREADS][];
            for (int t = 0; t < THREADS; t++) {
                byThread[t] = runs.get(t).get();
                IdRuns.assertStrictlyIncreasing(byThread[t]);
            }
            return IdRuns.concat(byThread);
        } finally {
            generator.close();
            pool.shutdownNow();
        }
    }

    /** How many of the sorted {@code ids} lie in {@code range}. */
    private static long issuedWithin(long[] ids, SegmentStore.Range range) {
        int from = Arrays.binarySearch(ids, range.first());
        int to = Arrays.binarySearch(ids, range.last() + 1);
        return insertionPoint(to) - insertionPoint(from);
    }

    private static int insertionPoint(int binarySearchResult) {
        return binarySearchResult >= 0 ? binarySearchResult : -binarySearchResult - 1;
    }
}
