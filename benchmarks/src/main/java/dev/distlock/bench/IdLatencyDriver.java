package dev.distlock.bench;

import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.internal.id.SegmentIdGenerator;
import dev.distlock.testkit.Quantiles;
import org.h2.jdbcx.JdbcDataSource;
import org.redisson.Redisson;
import org.redisson.api.RIdGenerator;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Segment ids outside JMH: the latency of every {@code nextId()} call across range refills, and
 * the store round trips per million ids, distlock {@link SegmentIdGenerator} (default settings,
 * {@link JdbcSegmentStore} on H2 in-memory, once as is and once with a delay added to every lease)
 * next to Redisson {@link RIdGenerator} ({@code tryInit(1, 5000)}).
 *
 * <p>Every row uses a new generator (a new H2 database, a new Redis key). Before the clock starts,
 * one thread takes its first id (the initial lease: no range yet, not a refill) or, for the warm
 * rows, its first {@code warmIds} ids, by which time distlock's step has grown from 1,000 to its
 * maximum of 1,000,000. Then 1 or 8 threads share the generator; each call is timed with two
 * {@link System#nanoTime()} reads into preallocated arrays. Every id of a row is kept and checked:
 * none may repeat, and a segment generator's ids must rise within each thread; a repeat fails the
 * benchmark.
 *
 * <p>A call <em>waited for the store</em> if it began before the range its id came from was
 * there: for distlock, before the store returned that range's lease (the decorator notes when);
 * for Redisson, which fetches an allocation only when a caller needs it, before the first call
 * served from that allocation returned (an upper bound of when Redis's answer arrived; a thread
 * can wait at most once per allocation, so this counts at most one call per thread and allocation).
 *
 * <p>The calling threads and Redisson's event-loop threads get 16 MB stacks: Redisson 4.7.0's
 * {@code RIdGenerator} serves queued requests by recursion, one level per id of an allocation, and
 * with 8 contending threads that overflows a default 1 MB stack; the overflow is swallowed in a
 * future callback and every later {@code nextId()} then waits forever.
 */
public final class IdLatencyDriver {

    static final long STACK_BYTES = 16L << 20;
    static final int REDISSON_ALLOCATION = 5_000;
    private static final Set<String> SCRIPT_REQUESTS = Set.of(
            "cmdstat_eval", "cmdstat_evalsha", "cmdstat_eval_ro", "cmdstat_evalsha_ro", "cmdstat_script");

    /**
     * @param latencyCalls    timed {@code nextId()} calls per latency row, shared by the threads
     * @param roundTripIds    ids per round-trip row
     * @param warmIds         untimed ids before the timed calls of the warm rows
     * @param jitWarmupCalls  untimed calls per row kind and thread count before any row (JIT), 0 for none
     * @param slowStoreDelay  added to every lease of the slow-store rows
     * @param gcBeforeRows    whether to collect garbage before each latency row, so that the
     *                        previous rows' arrays are not collected during its timed calls
     */
    public record Sizes(long latencyCalls, long roundTripIds, long warmIds, long jitWarmupCalls, Duration slowStoreDelay,
                        boolean gcBeforeRows) {
    }

    /**
     * One latency row: all {@code calls} latencies in nanoseconds, sorted. {@code idsBefore}: ids
     * taken untimed before; {@code rangeSize}: distlock's step, Redisson's allocation size, when
     * the timed calls started; {@code waitedCalls}: timed calls that waited for the store.
     */
    public record LatencyRow(String generator, String store, long idsBefore, long rangeSize, int threads, long calls,
                             long storeRoundTrips, long waitedCalls, long[] sortedNanos) {
        /** Nearest-rank quantile in µs, e.g. 0.999 for p99.9. */
        public double micros(double quantile) {
            return Quantiles.nearestRank(sortedNanos, quantile) / 1_000.0;
        }

        public double maxMicros() {
            return sortedNanos[sortedNanos.length - 1] / 1_000.0;
        }
    }

    /**
     * One round-trip row. {@code sqlCalls}: SQL statements plus commits, -1 for Redis;
     * {@code rangeSize}: distlock's step after the run, Redisson's allocation size.
     */
    public record RoundTripRow(String generator, String store, int threads, long ids, long storeRoundTrips,
                               long sqlCalls, long rangeSize) {
        public double perMillion() {
            return storeRoundTrips * 1e6 / ids;
        }

        public double sqlPerMillion() {
            return sqlCalls < 0 ? Double.NaN : sqlCalls * 1e6 / ids;
        }
    }

    public record Report(List<LatencyRow> latency, List<RoundTripRow> roundTrips) {
    }

    private IdLatencyDriver() {
    }

    /** Runs the latency rows (1 and 8 threads × four generator set-ups) and the round-trip rows. */
    public static Report run(String redisUrl, Sizes sizes) throws Exception {
        // One allocation request at a time is all RIdGenerator sends: a small pool is enough and starts faster.
        Config config = BenchRedis.config(redisUrl, 2);
        config.setNettyExecutor(IdLatencyDriver::startBigStackThread);
        RedissonClient redisson = Redisson.create(config);
        try {
            String slowStore = "H2 + " + sizes.slowStoreDelay().toMillis() + " ms per lease";
            String segment = "distlock SegmentIdGenerator";
            Kind fastFresh = new Kind(segment, "H2 in-memory", 1, () -> new SegmentCandidate(Duration.ZERO));
            Kind slowFresh = new Kind(segment, slowStore, 1, () -> new SegmentCandidate(sizes.slowStoreDelay()));
            Kind slowWarm = new Kind(segment, slowStore, sizes.warmIds(), () -> new SegmentCandidate(sizes.slowStoreDelay()));
            Kind redissonFresh = new Kind("Redisson RIdGenerator", "Redis", 1, () -> new RedissonCandidate(redisson));
            List<Kind> latencyKinds = List.of(fastFresh, slowFresh, slowWarm, redissonFresh);
            int[] threadCounts = {1, 8};

            if (sizes.jitWarmupCalls() > 0) {
                for (Kind kind : List.of(fastFresh, redissonFresh)) {
                    for (int threads : threadCounts) {
                        try (Candidate candidate = kind.factory.create()) {
                            measure(candidate, 1, threads, sizes.jitWarmupCalls());
                        }
                    }
                }
            }

            List<LatencyRow> latency = new ArrayList<>();
            for (int threads : threadCounts) {
                for (Kind kind : latencyKinds) {
                    try (Candidate candidate = kind.factory.create()) {
                        if (sizes.gcBeforeRows()) {
                            System.gc();
                        }
                        Run run = measure(candidate, kind.idsBefore, threads, sizes.latencyCalls());
                        LatencyRow row = new LatencyRow(kind.generator, kind.store, kind.idsBefore, run.rangeSize,
                                threads, sizes.latencyCalls(), run.timedRoundTrips, run.waitedCalls, run.sortedNanos);
                        System.out.printf("id latency %s / %s / %,d ids before, %d threads: p50 %.2f p99 %.2f p99.9 %.2f "
                                        + "max %.0f µs, %d store round trips, %d calls waited%n", kind.generator, kind.store,
                                kind.idsBefore, threads, row.micros(0.5), row.micros(0.99), row.micros(0.999),
                                row.maxMicros(), row.storeRoundTrips(), row.waitedCalls());
                        latency.add(row);
                    }
                }
            }

            List<RoundTripRow> roundTrips = new ArrayList<>();
            for (int threads : threadCounts) {
                for (Kind kind : List.of(fastFresh, redissonFresh)) {
                    try (Candidate candidate = kind.factory.create()) {
                        measure(candidate, 1, threads, sizes.roundTripIds() - 1);
                        candidate.awaitStoreIdle();
                        RoundTripRow row = new RoundTripRow(kind.generator, kind.store, threads, sizes.roundTripIds(),
                                candidate.storeRoundTrips(), candidate.sqlCalls(), candidate.rangeSize());
                        System.out.printf("id round trips %s, %d threads: %d for %,d ids%n",
                                kind.generator, threads, row.storeRoundTrips(), row.ids());
                        roundTrips.add(row);
                    }
                }
            }
            return new Report(latency, roundTrips);
        } finally {
            redisson.shutdown();
        }
    }

    /** Result of one {@link #measure} call: round trips during the timed calls, range size when they began. */
    private record Run(long timedRoundTrips, long rangeSize, long waitedCalls, long[] sortedNanos) {
    }

    /**
     * Takes {@code idsBefore} ids untimed on this thread, then has {@code threads} threads make
     * {@code calls} timed calls between them, and checks all the ids.
     */
    private static Run measure(Candidate candidate, long idsBefore, int threads, long calls) throws Exception {
        // Row 0: the untimed ids, taken by this thread; rows 1..threads: the timed calls' ids.
        long[][] ids = new long[threads + 1][];
        ids[0] = new long[Math.toIntExact(idsBefore)];
        for (int i = 0; i < ids[0].length; i++) {
            ids[0][i] = candidate.nextId();
        }
        long roundTripsBefore = candidate.storeRoundTrips();
        long rangeSize = candidate.rangeSize();
        long[][] starts = new long[threads][];
        long[][] ends = new long[threads][];
        for (int t = 0; t < threads; t++) {
            int share = Math.toIntExact(calls / threads + (t < calls % threads ? 1 : 0));
            starts[t] = new long[share];
            ends[t] = new long[share];
            ids[t + 1] = new long[share];
        }
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long[] threadStarts = starts[t];
            long[] threadEnds = ends[t];
            long[] threadIds = ids[t + 1];
            Thread worker = new Thread(null, () -> {
                try {
                    ready.countDown();
                    go.await();
                    for (int i = 0; i < threadIds.length; i++) {
                        long start = System.nanoTime();
                        long id = candidate.nextId();
                        threadEnds[i] = System.nanoTime();
                        threadStarts[i] = start;
                        threadIds[i] = id;
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-ids-" + t, STACK_BYTES);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("nextId() failed in the id latency run", failure.get());
        }
        long timedRoundTrips = candidate.storeRoundTrips() - roundTripsBefore;
        checkIds(ids, candidate.increasingPerThread());
        long[][] timedIds = Arrays.copyOfRange(ids, 1, ids.length);
        long waitedCalls = candidate.callsThatWaited(ids[0], timedIds, starts, ends);

        long[] all = new long[Math.toIntExact(calls)];
        int offset = 0;
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < starts[t].length; i++) {
                all[offset++] = ends[t][i] - starts[t][i];
            }
        }
        Arrays.sort(all);
        return new Run(timedRoundTrips, rangeSize, waitedCalls, all);
    }

    /** Throws if an id repeats across all the arrays, or if one array's ids do not rise when they must. */
    static void checkIds(long[][] idsPerThread, boolean increasingPerThread) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long[] ids : idsPerThread) {
            for (int i = 0; i < ids.length; i++) {
                if (increasingPerThread && i > 0 && ids[i] <= ids[i - 1]) {
                    throw new IllegalStateException("ids of one thread did not rise: " + ids[i - 1] + " then " + ids[i]);
                }
                min = Math.min(min, ids[i]);
                max = Math.max(max, ids[i]);
            }
        }
        if (max - min >= Integer.MAX_VALUE) {
            throw new IllegalStateException("ids span " + min + ".." + max + ", too wide for the duplicate check");
        }
        BitSet seen = new BitSet(Math.toIntExact(max - min + 1));
        for (long[] ids : idsPerThread) {
            for (long id : ids) {
                int bit = (int) (id - min);
                if (seen.get(bit)) {
                    throw new IllegalStateException("id " + id + " was issued twice");
                }
                seen.set(bit);
            }
        }
    }

    /** Netty executor for Redisson: one daemon thread per event loop, with a big stack (see the class comment). */
    private static void startBigStackThread(Runnable eventLoop) {
        Thread thread = new Thread(null, eventLoop, "bench-ids-redisson-netty", STACK_BYTES);
        thread.setDaemon(true);
        thread.start();
    }

    /** A row set-up: labels for the tables, untimed ids before timing, and how to make a new generator. */
    private record Kind(String generator, String store, long idsBefore, CandidateFactory factory) {
    }

    @FunctionalInterface
    private interface CandidateFactory {
        Candidate create() throws Exception;
    }

    /** One new generator under test and what it cost its store. */
    private interface Candidate extends AutoCloseable {
        long nextId();

        /** Store round trips since the generator was made. */
        long storeRoundTrips();

        /** Waits until the store is not answering a round trip the generator started on its own (a prefetch). */
        void awaitStoreIdle() throws InterruptedException;

        /** SQL statements plus commits since the generator was made; -1 when the store is not SQL. */
        long sqlCalls();

        long rangeSize();

        /** Whether each thread's ids must rise (segment generators hand out ranges in order). */
        boolean increasingPerThread();

        /**
         * How many of the timed calls (per thread: ids, start and end nanoTime) waited for the
         * store, given the ids handed out untimed before them; see the class comment.
         */
        long callsThatWaited(long[] untimedIds, long[][] ids, long[][] starts, long[][] ends);

        @Override
        void close();
    }

    /** distlock's generator over a new H2 in-memory database, leases counted and optionally delayed. */
    private static final class SegmentCandidate implements Candidate {
        private final JdbcCallCounter sql = new JdbcCallCounter();
        private final JdbcDataSource h2 = new JdbcDataSource();
        private final InstrumentedSegmentStore store;
        private final SegmentIdGenerator generator;
        /** SQL calls of creating the table, not counted. */
        private final long setUpCalls;

        SegmentCandidate(Duration leaseDelay) throws Exception {
            h2.setURL("jdbc:h2:mem:bench-ids-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
            JdbcSegmentStore jdbc = new JdbcSegmentStore(sql.wrap(h2), JdbcSegmentStore.DEFAULT_TABLE);
            jdbc.createTableIfAbsent();
            setUpCalls = sql.calls();
            store = new InstrumentedSegmentStore(jdbc, leaseDelay);
            generator = new SegmentIdGenerator("bench", store, SegmentIdGenerator.Settings.defaults());
        }

        @Override
        public long nextId() {
            return generator.nextId();
        }

        @Override
        public long storeRoundTrips() {
            return store.leases();
        }

        @Override
        public void awaitStoreIdle() throws InterruptedException {
            store.awaitNoLeaseInFlight(Duration.ofSeconds(10));
        }

        @Override
        public long sqlCalls() {
            return sql.calls() - setUpCalls;
        }

        @Override
        public long rangeSize() {
            return generator.currentStep();
        }

        @Override
        public boolean increasingPerThread() {
            return true;
        }

        @Override
        public long callsThatWaited(long[] untimedIds, long[][] ids, long[][] starts, long[][] ends) {
            long waited = 0;
            for (int t = 0; t < ids.length; t++) {
                InstrumentedSegmentStore.Lease lease = null;
                for (int i = 0; i < ids[t].length; i++) {
                    if (lease == null || ids[t][i] > lease.last()) {
                        lease = store.leaseOf(ids[t][i]);
                        if (lease == null) {
                            throw new IllegalStateException("id " + ids[t][i] + " lies in no range the store leased");
                        }
                    }
                    if (starts[t][i] < lease.returnedAtNanos()) {
                        waited++;
                    }
                }
            }
            return waited;
        }

        @Override
        public void close() {
            generator.close();
            try (Connection connection = h2.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("SHUTDOWN");
            } catch (SQLException e) {
                throw new IllegalStateException("could not drop the benchmark's H2 database", e);
            }
        }
    }

    /** Redisson's generator on a new key; round trips = script requests the Redis server received meanwhile. */
    private static final class RedissonCandidate implements Candidate {
        private final RedissonClient redisson;
        private final RIdGenerator generator;
        private final long commandsBefore;

        RedissonCandidate(RedissonClient redisson) {
            this.redisson = redisson;
            this.generator = redisson.getIdGenerator("bench-ids-latency-" + UUID.randomUUID());
            generator.tryInit(1, REDISSON_ALLOCATION);
            this.commandsBefore = redisCommands(redisson);
        }

        @Override
        public long nextId() {
            return generator.nextId();
        }

        @Override
        public long storeRoundTrips() {
            return redisCommands(redisson) - commandsBefore;
        }

        @Override
        public void awaitStoreIdle() {
            // Redisson fetches an allocation only while a caller waits for it: none is in flight now.
        }

        @Override
        public long sqlCalls() {
            return -1;
        }

        @Override
        public long rangeSize() {
            return REDISSON_ALLOCATION;
        }

        @Override
        public boolean increasingPerThread() {
            return false;
        }

        @Override
        public long callsThatWaited(long[] untimedIds, long[][] ids, long[][] starts, long[][] ends) {
            // Allocation k holds ids 1 + k * size .. (k + 1) * size; it was there at the latest when the
            // first call served from it returned (a thread waits at most once per allocation).
            long maxId = 0;
            for (long[] threadIds : ids) {
                for (long id : threadIds) {
                    maxId = Math.max(maxId, id);
                }
            }
            long[] thereAt = new long[Math.toIntExact((maxId - 1) / REDISSON_ALLOCATION + 1)];
            Arrays.fill(thereAt, Long.MAX_VALUE);
            for (int t = 0; t < ids.length; t++) {
                for (int i = 0; i < ids[t].length; i++) {
                    int allocation = (int) ((ids[t][i] - 1) / REDISSON_ALLOCATION);
                    thereAt[allocation] = Math.min(thereAt[allocation], ends[t][i]);
                }
            }
            for (long id : untimedIds) {
                // Handed out before the clock started: there before any timed call.
                int allocation = (int) ((id - 1) / REDISSON_ALLOCATION);
                if (allocation < thereAt.length) {
                    thereAt[allocation] = Long.MIN_VALUE;
                }
            }
            long waited = 0;
            for (int t = 0; t < ids.length; t++) {
                for (int i = 0; i < ids[t].length; i++) {
                    if (starts[t][i] < thereAt[(int) ((ids[t][i] - 1) / REDISSON_ALLOCATION)]) {
                        waited++;
                    }
                }
            }
            return waited;
        }

        @Override
        public void close() {
            generator.delete();
        }
    }

    /**
     * Script requests the Redis server has received so far (EVAL, EVALSHA and their read-only
     * forms, SCRIPT), from INFO commandstats: each one a round trip. The commands a script runs
     * inside Redis are counted there too, so they are left out. Server-wide: nothing else may run
     * scripts on the server meanwhile, which holds for the embedded one.
     */
    static long redisCommands(RedissonClient redisson) {
        Map<String, String> stats = redisson.getRedisNodes(RedisNodes.SINGLE).getInstance()
                .info(RedisNode.InfoSection.COMMANDSTATS);
        long total = 0;
        for (Map.Entry<String, String> command : stats.entrySet()) {
            if (!SCRIPT_REQUESTS.contains(command.getKey())) {
                continue;
            }
            for (String field : command.getValue().split(",")) {
                if (field.startsWith("calls=") || field.startsWith("rejected_calls=")) {
                    total += Long.parseLong(field.substring(field.indexOf('=') + 1));
                }
            }
        }
        return total;
    }
}
