package dev.distlock.bench;

import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.internal.id.SegmentIdGenerator;
import dev.distlock.testkit.Quantiles;
import org.redisson.Redisson;
import org.redisson.api.RIdGenerator;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
 * benchmark. The timed calls and the check are {@link TimedIdCalls}; the generators under test
 * {@link SegmentIdCandidate} and {@link RedissonIdCandidate}.
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
            Kind fastFresh = new Kind(segment, "H2 in-memory", 1, () -> new SegmentIdCandidate(Duration.ZERO));
            Kind slowFresh = new Kind(segment, slowStore, 1, () -> new SegmentIdCandidate(sizes.slowStoreDelay()));
            Kind slowWarm = new Kind(segment, slowStore, sizes.warmIds(), () -> new SegmentIdCandidate(sizes.slowStoreDelay()));
            Kind redissonFresh = new Kind("Redisson RIdGenerator", "Redis", 1, () -> new RedissonIdCandidate(redisson));
            List<Kind> latencyKinds = List.of(fastFresh, slowFresh, slowWarm, redissonFresh);
            int[] threadCounts = {1, 8};

            if (sizes.jitWarmupCalls() > 0) {
                for (Kind kind : List.of(fastFresh, redissonFresh)) {
                    for (int threads : threadCounts) {
                        try (IdCandidate candidate = kind.factory.create()) {
                            TimedIdCalls.measure(candidate, 1, threads, sizes.jitWarmupCalls());
                        }
                    }
                }
            }

            List<LatencyRow> latency = new ArrayList<>();
            for (int threads : threadCounts) {
                for (Kind kind : latencyKinds) {
                    try (IdCandidate candidate = kind.factory.create()) {
                        if (sizes.gcBeforeRows()) {
                            System.gc();
                        }
                        TimedIdCalls.Run run = TimedIdCalls.measure(candidate, kind.idsBefore, threads, sizes.latencyCalls());
                        LatencyRow row = new LatencyRow(kind.generator, kind.store, kind.idsBefore, run.rangeSize(),
                                threads, sizes.latencyCalls(), run.timedRoundTrips(), run.waitedCalls(), run.sortedNanos());
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
                    try (IdCandidate candidate = kind.factory.create()) {
                        TimedIdCalls.measure(candidate, 1, threads, sizes.roundTripIds() - 1);
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
        IdCandidate create() throws Exception;
    }
}
