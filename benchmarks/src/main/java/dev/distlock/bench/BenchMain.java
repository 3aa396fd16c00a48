package dev.distlock.bench;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.annotations.Mode;

import dev.distlock.testkit.DelayingProxy;
import dev.distlock.testkit.OneWayDelays;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleFunction;

/**
 * Runs everything and prints markdown: the JMH benchmarks ({@link LockBenchmark},
 * {@link LockedBeanBenchmark}, {@link IdBenchmark}), the multi-process hot-key driver
 * ({@link HotKeyDriver}), the many-keys driver ({@link ManyKeysDriver}) and the segment-id latency
 * driver ({@link IdLatencyDriver}), distlock next to raw Redisson.
 *
 * <p>System properties: {@code bench.quick=true} (one very short iteration of everything, a smoke
 * check), {@code bench.warmup} / {@code bench.measure} (iterations of 1 s, default 3 / 5),
 * {@code bench.forks} (default 1), {@code bench.hot.seconds} (default 5), {@code bench.hot.rounds}
 * (default 3), {@code bench.hot.threads} (default 1,4,16,64), {@code bench.hot.jvms} (default 2),
 * {@code bench.hot.fenced} (default true: fenced rows too), {@code bench.keys.*} (see
 * {@link #appendManyKeys}), {@code bench.ids.calls} (default 2,000,000), {@code bench.ids.delay.ms}
 * (default 2), {@code bench.backends.*} (see {@link #appendBackends}), {@code bench.only} (jmh | uncontended |
 * hot | keys | ids | backends), {@code bench.out} (markdown file,
 * default target/benchmarks.md).
 */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) {
        try {
            run();
        } catch (Throwable failure) {
            // Redisson's and JMH's threads would keep a failed run alive; exit non-zero instead.
            failure.printStackTrace();
            System.exit(1);
        }
    }

    private static void run() throws Exception {
        boolean quick = Boolean.getBoolean("bench.quick");
        String only = System.getProperty("bench.only", "");
        if (!List.of("", "jmh", "uncontended", "hot", "keys", "ids", "backends").contains(only)) {
            throw new IllegalArgumentException("bench.only must be jmh, uncontended, hot, keys, ids or backends, was " + only);
        }
        String url = BenchRedis.url();
        StringBuilder md = new StringBuilder();
        md.append("## Results ").append(Instant.now().toString(), 0, 16).append("Z\n\n");
        md.append("Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, ")
                .append(System.getProperty("java.vm.name")).append(' ').append(System.getProperty("java.version"))
                .append(", ").append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch"))
                .append("; Redis: ").append(BenchRedis.origin()).append(quick ? "; QUICK smoke run, numbers meaningless" : "")
                .append("\n\n");

        if (only.isEmpty() || only.equals("jmh")) {
            Map<String, RunResult> results = runJmh(url, quick);
            appendJmh(md, results);
        }
        if (only.isEmpty() || only.equals("uncontended")) {
            appendUncontended(md, url, quick);
        }
        if (only.isEmpty() || only.equals("hot")) {
            appendHotKey(md, url, quick);
        }
        if (only.isEmpty() || only.equals("keys")) {
            appendManyKeys(md, url, quick);
        }
        if (only.isEmpty() || only.equals("ids")) {
            appendIdLatency(md, url, quick);
        }
        if (only.isEmpty() || only.equals("backends")) {
            appendBackends(md, url, quick);
        }

        String text = md.toString();
        System.out.println();
        System.out.println("==================== markdown ====================");
        System.out.println(text);
        Path out = Path.of(System.getProperty("bench.out", "target/benchmarks.md"));
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(out, text);
        System.out.println("(written to " + out.toAbsolutePath() + ")");
        System.exit(0);
    }

    private static Map<String, RunResult> runJmh(String url, boolean quick) throws Exception {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(LockBenchmark.class.getName() + ".*")
                .include(LockedBeanBenchmark.class.getName() + ".*")
                .include(IdBenchmark.class.getName() + ".*")
                .mode(Mode.Throughput)
                .timeUnit(TimeUnit.SECONDS)
                .shouldFailOnError(true)
                .jvmArgsAppend("-D" + BenchRedis.PROPERTY + "=" + url, "-Xmx512m");
        if (quick) {
            options.forks(0).warmupIterations(0).measurementIterations(1)
                    .measurementTime(TimeValue.milliseconds(100));
        } else {
            options.forks(Integer.getInteger("bench.forks", 1))
                    .warmupIterations(Integer.getInteger("bench.warmup", 3)).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(Integer.getInteger("bench.measure", 5)).measurementTime(TimeValue.seconds(1));
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        Map<String, RunResult> byName = new HashMap<>();
        for (RunResult result : results) {
            String method = result.getParams().getBenchmark();
            method = method.substring(method.lastIndexOf('.') + 1);
            String keys = result.getParams().getParam("keys");
            byName.put(keys == null ? method : method + ":" + keys, result);
        }
        return byName;
    }

    private static void appendJmh(StringBuilder md, Map<String, RunResult> r) {
        md.append("### Uncontended lock + unlock (JMH, 1 thread, empty critical section)\n\n");
        md.append("| keys | lease | raw Redisson ops/s | distlock ops/s | distlock/raw | raw µs/op | distlock µs/op |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|\n");
        for (String keys : List.of("same", "distinct")) {
            row(md, keys, "watchdog", r.get("rawWatchdog:" + keys), r.get("distlockWatchdog:" + keys));
            row(md, keys, "fixed 30 s", r.get("rawFixedLease:" + keys), r.get("distlockFixedLease:" + keys));
        }
        md.append('\n');
        appendLockedBean(md, r);

        md.append("### Ids per second (JMH)\n\n");
        md.append("| generator | threads | baseline | baseline ids/s | distlock ids/s | distlock/baseline |\n");
        md.append("|---|---:|---|---:|---:|---:|\n");
        idRow(md, "Snowflake", 1, "naive synchronized", r.get("snowflakeNaive_1thread"), r.get("snowflakeDistlock_1thread"));
        idRow(md, "Snowflake", 8, "naive synchronized", r.get("snowflakeNaive_8threads"), r.get("snowflakeDistlock_8threads"));
        idRow(md, "Snowflake, worker id leased in Redis", 1, "naive synchronized", r.get("snowflakeNaive_1thread"),
                r.get("snowflakeLeased_1thread"));
        idRow(md, "Snowflake, worker id leased in Redis", 8, "naive synchronized", r.get("snowflakeNaive_8threads"),
                r.get("snowflakeLeased_8threads"));
        idRow(md, "Snowflake, leased, 22 sequence bits (no 4,096/ms cap)", 1, "naive synchronized", r.get("snowflakeNaive_1thread"),
                r.get("snowflakeLeasedWide_1thread"));
        idRow(md, "Snowflake, leased, 22 sequence bits (no 4,096/ms cap)", 8, "naive synchronized", r.get("snowflakeNaive_8threads"),
                r.get("snowflakeLeasedWide_8threads"));
        idRow(md, "Segment (distlock: H2 in-memory store)", 1, "Redisson RIdGenerator",
                r.get("segmentRedissonIdGenerator_1thread"), r.get("segmentDistlockH2_1thread"));
        idRow(md, "Segment (distlock: H2 in-memory store)", 8, "Redisson RIdGenerator",
                r.get("segmentRedissonIdGenerator_8threads"), r.get("segmentDistlockH2_8threads"));
        idRow(md, "Floor, not a generator: one AtomicLong.getAndIncrement() per id", 1, "Redisson RIdGenerator",
                r.get("segmentRedissonIdGenerator_1thread"), r.get("segmentFloorAtomicIncrement_1thread"));
        idRow(md, "Daily serial (distlock: Redis script + H2 ranges of 100)", 1, "bare INCR of a day's key",
                r.get("dailySerialIncr_1thread"), r.get("dailySerialDistlock_1thread"));
        idRow(md, "Daily serial (distlock: Redis script + H2 ranges of 100)", 8, "bare INCR of a day's key",
                r.get("dailySerialIncr_8threads"), r.get("dailySerialDistlock_8threads"));
        md.append("\nFloor: the least a generator whose ids increase across a JVM's threads pays per id, one shared atomic ")
                .append("increment; its ratio is the most such a generator can reach against Redisson's in this run. ")
                .append("Daily serial: both one Redis round trip per number; the bare INCR repeats numbers once Redis loses its data.\n\n");
    }

    /** {@link LockedBeanBenchmark}: raw RLock, a {@code @Locked} bean method in Weld, and the programmatic API. */
    private static void appendLockedBean(StringBuilder md, Map<String, RunResult> r) {
        md.append("### Uncontended @Locked call through Weld (JMH, 1 thread)\n\n");
        md.append("Watchdog lease, empty critical section; all three on the Redisson client distlock built from ")
                .append("MicroProfile Config, the programmatic calls on the interceptor's own engine.\n\n");
        md.append("| keys | raw ops/s | @Locked ops/s | programmatic ops/s | @Locked/raw | µs/op raw / @Locked / programmatic |\n");
        md.append("|---|---:|---:|---:|---:|---:|\n");
        for (String keys : List.of("same", "distinct")) {
            RunResult raw = r.get("rawRLock:" + keys);
            RunResult locked = r.get("lockedMethod:" + keys);
            RunResult programmatic = r.get("programmatic:" + keys);
            md.append("| ").append(keys).append(" | ").append(ops(raw)).append(" | ").append(ops(locked)).append(" | ")
                    .append(ops(programmatic)).append(" | ").append(String.format("%.2f", score(locked) / score(raw)))
                    .append(" | ").append(String.format("%.1f / %.1f / %.1f",
                            1e6 / score(raw), 1e6 / score(locked), 1e6 / score(programmatic))).append(" |\n");
        }
        md.append('\n');
    }

    private static double score(RunResult result) {
        return result == null ? Double.NaN : result.getPrimaryResult().getScore();
    }

    private static String ops(RunResult result) {
        if (result == null) {
            return "n/a";
        }
        double error = result.getPrimaryResult().getScoreError();
        String value = String.format("%,.0f", result.getPrimaryResult().getScore());
        return Double.isNaN(error) ? value : value + " ± " + String.format("%,.0f", error);
    }

    private static void row(StringBuilder md, String keys, String lease, RunResult raw, RunResult distlock) {
        md.append("| ").append(keys).append(" | ").append(lease).append(" | ").append(ops(raw)).append(" | ")
                .append(ops(distlock)).append(" | ").append(String.format("%.2f", score(distlock) / score(raw)))
                .append(" | ").append(String.format("%.1f", 1e6 / score(raw))).append(" | ")
                .append(String.format("%.1f", 1e6 / score(distlock))).append(" |\n");
    }

    private static void idRow(StringBuilder md, String generator, int threads, String baseline, RunResult base, RunResult distlock) {
        md.append("| ").append(generator).append(" | ").append(threads).append(" | ").append(baseline).append(" | ")
                .append(ops(base)).append(" | ").append(ops(distlock)).append(" | ")
                .append(String.format("%.2f", score(distlock) / score(base))).append(" |\n");
    }

    /**
     * Segment ids outside JMH ({@link IdLatencyDriver}): nextId() latency percentiles across range
     * refills, and store round trips per million ids, distlock next to Redisson's RIdGenerator.
     */
    private static void appendIdLatency(StringBuilder md, String url, boolean quick) throws Exception {
        long calls = quick ? 10_000 : Long.getLong("bench.ids.calls", 2_000_000);
        long roundTripIds = quick ? 10_000 : 1_000_000;
        long warmIds = quick ? 10_000 : 2_000_000;
        long jitWarmup = quick ? 0 : 200_000;
        Duration delay = Duration.ofMillis(Long.getLong("bench.ids.delay.ms", 2));
        long started = System.nanoTime();
        IdLatencyDriver.Report report = IdLatencyDriver.run(url,
                new IdLatencyDriver.Sizes(calls, roundTripIds, warmIds, jitWarmup, delay, !quick));
        System.out.printf("id latency and round trips took %.1f s%n", (System.nanoTime() - started) / 1e9);
        DoubleFunction<String> micros = value -> value < 10 ? String.format("%.2f", value)
                : value < 1_000 ? String.format("%.1f", value) : String.format("%,.0f", value);

        md.append("### nextId() latency across refills (segment ids, not JMH, every call timed)\n\n");
        md.append(String.format("%,d timed calls per row, shared by the threads, on a new generator after the ids ", calls))
                .append("taken untimed before (1: just the initial lease). Range size at start: distlock's step, Redisson's ")
                .append("allocation size. Store round trips: leases (distlock) or Redis script requests (Redisson) during the ")
                .append("timed calls. Waited: timed calls that began before the range their id came from was there. ")
                .append("Latencies include one System.nanoTime() read.\n\n");
        md.append("| generator | store | ids before | range size at start | threads | store round trips | waited | p50 µs | p99 µs | p99.9 µs | p99.99 µs | max µs |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (IdLatencyDriver.LatencyRow row : report.latency()) {
            md.append("| ").append(row.generator()).append(" | ").append(row.store())
                    .append(" | ").append(String.format("%,d", row.idsBefore()))
                    .append(" | ").append(String.format("%,d", row.rangeSize()))
                    .append(" | ").append(row.threads())
                    .append(" | ").append(String.format("%,d", row.storeRoundTrips()))
                    .append(" | ").append(String.format("%,d", row.waitedCalls()))
                    .append(" | ").append(micros.apply(row.micros(0.5))).append(" | ").append(micros.apply(row.micros(0.99)))
                    .append(" | ").append(micros.apply(row.micros(0.999))).append(" | ").append(micros.apply(row.micros(0.9999)))
                    .append(" | ").append(micros.apply(row.maxMicros())).append(" |\n");
        }
        md.append('\n');

        md.append(String.format("### Store round trips per million segment ids (new generator, %,d ids)%n%n", roundTripIds));
        md.append("| generator | store | threads | store round trips | per million ids | SQL statements + commits per million ids | range size at the end |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|\n");
        for (IdLatencyDriver.RoundTripRow row : report.roundTrips()) {
            md.append("| ").append(row.generator()).append(" | ").append(row.store()).append(" | ").append(row.threads())
                    .append(" | ").append(String.format("%,d", row.storeRoundTrips()))
                    .append(" | ").append(String.format("%,.1f", row.perMillion()))
                    .append(" | ").append(row.sqlCalls() < 0 ? "-" : String.format("%,.1f", row.sqlPerMillion()))
                    .append(" | ").append(String.format("%,d", row.rangeSize())).append(" |\n");
        }
        md.append('\n');
    }

    /**
     * {@link BackendDriver}: distlock on Redis, ZooKeeper and the database next to each store's own
     * lock. Properties: {@code bench.backends.threads} (8 per node), {@code bench.backends.seconds}
     * (5 per hot-key run), {@code bench.backends.slices} (21), {@code bench.backends.calls} (200 per slice),
     * {@code bench.backends.stores} (which stores, comma-separated: redis, zookeeper, database; all by default).
     */
    private static void appendBackends(StringBuilder md, String url, boolean quick) throws Exception {
        int threads = Integer.getInteger("bench.backends.threads", 8);
        long millis = Long.getLong("bench.backends.seconds", 5) * 1000;
        int slices = Integer.getInteger("bench.backends.slices", 21);
        int calls = Integer.getInteger("bench.backends.calls", 200);
        long started = System.nanoTime();
        Set<String> stores = Set.of(System.getProperty("bench.backends.stores", "redis,zookeeper,database").split(","));
        if (!Set.of("redis", "zookeeper", "database").containsAll(stores)) {
            throw new IllegalArgumentException("bench.backends.stores must name redis, zookeeper or database, was " + stores);
        }
        List<BackendDriver.Row> rows = BackendDriver.run(url, quick, threads, millis, slices, calls, stores);
        System.out.printf("backends took %.1f s%n", (System.nanoTime() - started) / 1e9);
        md.append("### Each backend next to its store's own lock\n\n");
        md.append("Uncontended: one thread, baseline and distlock taking turns in slices, ratio = median of the slices' "
                + "ratios. Hot key: two nodes (two clients, sessions or data sources) in this JVM, threads on one key, "
                + "each section an increment of a plain counter, checked for overlap and lost updates. ZooKeeper: "
                + "Curator's test server in this JVM; database: an H2 TCP server in this JVM, or DISTLOCK_BENCH_POSTGRES_URL.\n\n");
        md.append(BackendDriver.format(rows)).append('\n');
    }

    /**
     * {@link UncontendedAb}: one JVM per variant, taking turns; several sets of JVMs one after the
     * other, since each JVM compiles the same code a little differently. Properties (ignored with
     * {@code bench.quick}): {@code bench.uncontended.sets} (5), {@code bench.uncontended.rounds} (40),
     * {@code bench.uncontended.slice} (500 calls), {@code bench.uncontended.warmup} (80 rounds).
     */
    private static void appendUncontended(StringBuilder md, String url, boolean quick) throws Exception {
        int sets = quick ? 1 : Integer.getInteger("bench.uncontended.sets", 5);
        int rounds = quick ? 2 : Integer.getInteger("bench.uncontended.rounds", 40);
        int slice = quick ? 50 : Integer.getInteger("bench.uncontended.slice", 500);
        int warmRounds = quick ? 1 : Integer.getInteger("bench.uncontended.warmup", 80);
        md.append("### Uncontended calls, one JVM per variant, taking turns\n\n");
        md.append("Each variant in a JVM of its own (one key, watchdog lease, empty critical section), raw twice as a "
                + "control; the JVMs run ")
                .append(slice).append(" calls at a time, one after the other in an order shuffled every round: ").append(warmRounds)
                .append(" rounds of warm-up, then ").append(rounds).append(" measured rounds, every call timed. ")
                .append(sets).append(sets == 1 ? " set" : " sets").append(" of JVMs, one after the other.\n\n");
        List<List<UncontendedAb.Row>> results = new ArrayList<>();
        for (int set = 1; set <= sets; set++) {
            List<UncontendedAb.Row> rows = UncontendedAb.run(url, rounds, slice, warmRounds);
            results.add(rows);
            String table = UncontendedAb.format(rows);
            System.out.print("uncontended, set " + set + ":\n" + table);
            md.append("Set ").append(set).append(":\n\n").append(table).append('\n');
        }
        if (sets > 1) {
            md.append(UncontendedAb.summary(results)).append("\n\n");
        }
    }

    /**
     * {@link HotKeyDriver}: for each T, {@code bench.hot.rounds} rounds (3; 1 with {@code bench.quick})
     * of raw then distlock. One 5 s run moves by ± 20 % from the next on this machine, so the table
     * shows the round whose ratio is the median, and a line per T gives every round's ratio.
     *
     * @throws IllegalStateException after appending the table, if any round saw an exclusion
     *                               violation or a counter that does not match its sections
     */
    private static void appendHotKey(StringBuilder md, String url, boolean quick) throws Exception {
        int start = md.length();
        int jvms = Integer.getInteger("bench.hot.jvms", 2);
        long millis = quick ? 500 : Long.getLong("bench.hot.seconds", 5) * 1000;
        int rounds = quick ? 1 : Integer.getInteger("bench.hot.rounds", 3);
        String threadList = quick ? "2" : System.getProperty("bench.hot.threads", "1,4,16,64");
        List<Integer> threadCounts = new ArrayList<>();
        for (String part : threadList.split(",")) {
            threadCounts.add(Integer.parseInt(part.strip()));
        }
        Path work = Path.of("target", "hotkey");
        md.append("### Hot key across processes (").append(jvms).append(" JVMs × T threads, one key, ")
                .append(millis / 1000.0).append(" s each, ").append(rounds).append(rounds == 1 ? " round" : " rounds")
                .append(")\n\n");
        md.append("Critical section: one Redis INCR, inside a marker shared by the JVMs through a mapped file ")
                .append("(an overlap of holders is a violation). Wait = time from asking for the lock to holding it. ")
                .append("Via Redis = share of sections whose lock came from Redis rather than from a local handoff. ")
                .append("Each round runs raw, then distlock, each in fresh JVMs that first warm up contending for another ")
                .append("key; then the same for fenced locks (raw-fenced: Redisson's RFencedLock, lockAndGetToken; ")
                .append("distlock-fenced: fenced(), which hands the tenure and its token on locally), unless ")
                .append("bench.hot.fenced=false; shown: the round whose ratio is the median, every round's ratio below.\n\n");
        md.append("| T | impl | sections/s | p50 wait ms | p99 wait ms | share per JVM | via Redis | violations | counter = sections | distlock/raw |\n");
        md.append("|---:|---|---:|---:|---:|---|---:|---:|---|---:|\n");
        List<HotKeyDriver.Row> plotted = new ArrayList<>();
        StringBuilder perRound = new StringBuilder();
        List<String> problems = new ArrayList<>();
        // Each pair: raw Redisson and distlock, plain (RLock) and fenced (RFencedLock, a token per holder).
        List<String[]> kinds = Boolean.parseBoolean(System.getProperty("bench.hot.fenced", "true"))
                ? List.of(new String[] {"raw", "distlock"}, new String[] {"raw-fenced", "distlock-fenced"})
                : List.<String[]>of(new String[] {"raw", "distlock"});
        for (int threads : threadCounts) {
            for (String[] kind : kinds) {
                HotKeyDriver.Row[] median = hotPairs(url, "", jvms, threads, millis, rounds, kind, work, perRound, problems);
                hotRow(md, "", median[0], "");
                hotRow(md, "", median[1], String.format("%.2f", hotRatio(median)));
                if (kind[0].equals("raw")) { // the plot shows the plain pair
                    plotted.add(median[0]);
                    plotted.add(median[1]);
                }
            }
        }
        md.append("\ndistlock/raw in each round, in order: ").append(perRound.toString().strip()).append("\n\n");
        Path plot = Path.of(System.getProperty("bench.plot", "target/hotkey.svg"));
        HotKeyPlot.write(plotted, "One hot key, " + jvms + " JVMs: throughput against threads per JVM", plot);
        md.append("Plot: `").append(plot).append("`\n\n");
        appendHotKeyDelayed(md, url, quick, jvms, millis, rounds, kinds, work, problems);
        if (!problems.isEmpty()) {
            System.out.println(md.substring(start));
            throw new IllegalStateException("hot-key invariants broken: " + String.join("; ", problems));
        }
    }

    /**
     * The hot key with Redis across a network: the children reach Redis through a {@link DelayingProxy}
     * that holds every byte back by a one-way delay, {@code bench.hot.delays} milliseconds ({@code 0.25,1};
     * {@code 1} with {@code bench.quick}; {@code 0} or empty for none), with {@code bench.hot.delay.threads}
     * threads per JVM (16; 2 with {@code bench.quick}, which also leaves out the fenced pair: the smoke run
     * only shows the mode works).
     */
    private static void appendHotKeyDelayed(StringBuilder md, String url, boolean quick, int jvms, long millis, int rounds,
                                            List<String[]> kinds, Path work, List<String> problems) throws Exception {
        List<Duration> delays;
        try {
            delays = OneWayDelays.parse(System.getProperty("bench.hot.delays", quick ? "1" : "0.25,1"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bench.hot.delays: " + e.getMessage(), e);
        }
        if (delays.isEmpty()) {
            return;
        }
        int threads = quick ? 2 : Integer.getInteger("bench.hot.delay.threads", 16);
        List<String[]> delayedKinds = quick ? kinds.subList(0, 1) : kinds;
        URI redis = URI.create(url);
        md.append("#### The same with Redis across a network (").append(jvms).append(" JVMs × ").append(threads)
                .append(" threads)\n\nEvery byte between the children and Redis goes through a proxy on this machine that ")
                .append("delivers it a fixed one-way delay after it arrived (test kit's DelayingProxy): a round trip ")
                .append("costs at least twice the delay, as across a network. Same rounds and median as above.\n\n");
        md.append("| one-way delay | T | impl | sections/s | p50 wait ms | p99 wait ms | share per JVM | via Redis | violations | counter = sections | distlock/raw |\n");
        md.append("|---:|---:|---|---:|---:|---:|---|---:|---:|---|---:|\n");
        StringBuilder perRound = new StringBuilder();
        for (Duration delay : delays) {
            String label = OneWayDelays.millis(delay) + " ms";
            try (DelayingProxy proxy = DelayingProxy.start(redis.getHost(), redis.getPort(), delay)) {
                String through = url.replace(redis.getHost() + ":" + redis.getPort(), "127.0.0.1:" + proxy.port());
                for (String[] kind : delayedKinds) {
                    HotKeyDriver.Row[] median = hotPairs(through, label + ", ", jvms, threads, millis, rounds, kind, work,
                            perRound, problems);
                    hotRow(md, label, median[0], "");
                    hotRow(md, label, median[1], String.format("%.2f", hotRatio(median)));
                }
            }
        }
        md.append("\ndistlock/raw in each round, in order: ").append(perRound.toString().strip()).append("\n\n");
    }

    /**
     * {@code rounds} rounds of {@code kind[0]} (raw) then {@code kind[1]} (distlock); notes every
     * round's ratio in {@code perRound} and every broken invariant in {@code problems}.
     *
     * @return the pair whose ratio is the median
     */
    private static HotKeyDriver.Row[] hotPairs(String url, String label, int jvms, int threads, long millis, int rounds,
                                               String[] kind, Path work, StringBuilder perRound, List<String> problems)
            throws Exception {
        List<HotKeyDriver.Row[]> pairs = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            HotKeyDriver.Row raw = HotKeyDriver.run(kind[0], url, jvms, threads, millis, work);
            System.out.println("hot key " + label + kind[0] + " T=" + threads + " round " + round + ": " + raw);
            HotKeyDriver.Row distlock = HotKeyDriver.run(kind[1], url, jvms, threads, millis, work);
            System.out.println("hot key " + label + kind[1] + " T=" + threads + " round " + round + ": " + distlock);
            pairs.add(new HotKeyDriver.Row[] {raw, distlock});
            for (HotKeyDriver.Row row : List.of(raw, distlock)) {
                if (row.violations() != 0 || row.counter() != row.ops()) {
                    problems.add(label + row.impl() + " T=" + threads + " round " + round + ": " + row.violations()
                            + " violations, counter " + row.counter() + " for " + row.ops() + " sections");
                }
            }
        }
        List<HotKeyDriver.Row[]> byRatio = new ArrayList<>(pairs);
        byRatio.sort(Comparator.comparingDouble(BenchMain::hotRatio));
        perRound.append(label).append("T = ").append(threads).append(", ").append(kind[1]).append(": ");
        for (int i = 0; i < pairs.size(); i++) {
            perRound.append(i == 0 ? "" : ", ").append(String.format("%.2f", hotRatio(pairs.get(i))));
        }
        perRound.append(" (").append(kind[0]).append(" ").append(sectionsPerSecond(pairs, 0)).append(", ")
                .append(kind[1]).append(" ").append(sectionsPerSecond(pairs, 1)).append(" sections/s). ");
        return byRatio.get(byRatio.size() / 2);
    }

    private static double hotRatio(HotKeyDriver.Row[] pair) {
        return pair[1].throughput() / pair[0].throughput();
    }

    private static String sectionsPerSecond(List<HotKeyDriver.Row[]> pairs, int impl) {
        StringBuilder text = new StringBuilder();
        for (HotKeyDriver.Row[] pair : pairs) {
            text.append(text.length() == 0 ? "" : " / ").append(String.format("%,.0f", pair[impl].throughput()));
        }
        return text.toString();
    }

    /** @param delay the one-way delay's cell, for the table across a network; empty for the loopback table */
    private static void hotRow(StringBuilder md, String delay, HotKeyDriver.Row row, String ratio) {
        md.append(delay.isEmpty() ? "| " : "| " + delay + " | ").append(row.threads()).append(" | ").append(row.impl()).append(" | ")
                .append(String.format("%,.0f", row.throughput())).append(" | ")
                .append(String.format("%.2f", row.p50Micros() / 1000.0)).append(" | ")
                .append(String.format("%.2f", row.p99Micros() / 1000.0)).append(" | ")
                .append(row.shares()).append(" | ")
                // handoffs also count sections that ended after the deadline, so ops - handoffs can dip below 0
                .append(row.ops() == 0 ? "-" : String.format("%.0f%%", 100.0 * Math.max(0, row.ops() - row.handoffs()) / row.ops()))
                .append(" | ").append(row.violations()).append(" | ")
                .append(row.counter() == row.ops() ? "yes" : "NO (" + row.counter() + " vs " + row.ops() + ")")
                .append(" | ").append(ratio).append(" |\n");
    }

    /**
     * {@link ManyKeysDriver}, raw Redisson then distlock for each part. Properties (ignored with
     * {@code bench.quick}, which uses tiny sizes): {@code bench.keys.own.threads} (8),
     * {@code bench.keys.own.seconds} (5), {@code bench.keys.count} (2000), {@code bench.keys.callers} (2),
     * {@code bench.keys.pool} (64), {@code bench.keys.hold.micros} (1000).
     *
     * @throws IllegalStateException after appending the tables, if a call failed, two callers held a
     *                               key at once, or a lock key, a pub/sub channel or a local queue was left
     */
    private static void appendManyKeys(StringBuilder md, String url, boolean quick) throws Exception {
        int ownThreads = quick ? 8 : Integer.getInteger("bench.keys.own.threads", 8);
        long ownMillis = quick ? 300 : Long.getLong("bench.keys.own.seconds", 5) * 1000;
        long ownWarmupMillis = quick ? 0 : 1000;
        int keys = quick ? 100 : Integer.getInteger("bench.keys.count", 2000);
        int callers = quick ? 2 : Integer.getInteger("bench.keys.callers", 2);
        int pool = quick ? 16 : Integer.getInteger("bench.keys.pool", 64);
        long holdMicros = quick ? 1000 : Long.getLong("bench.keys.hold.micros", 1000);
        int warmupKeys = quick ? 0 : Math.min(keys, 500);
        Duration wait = Duration.ofSeconds(30);
        long settleMillis = quick ? 2000 : 5000;

        List<String> problems = new ArrayList<>();
        int start = md.length();
        try (ManyKeysDriver driver = new ManyKeysDriver(url, Math.max(64, Math.max(ownThreads, pool) + 8), settleMillis)) {
            ManyKeysDriver.OwnKeysRow ownRaw = driver.ownKeys("raw", ownThreads, ownWarmupMillis, ownMillis);
            System.out.println("many keys, own key per thread: " + ownRaw);
            ManyKeysDriver.OwnKeysRow ownDistlock = driver.ownKeys("distlock", ownThreads, ownWarmupMillis, ownMillis);
            System.out.println("many keys, own key per thread: " + ownDistlock);
            md.append("### Many keys (a): a key of its own per thread (").append(ownThreads).append(" threads, one JVM, ")
                    .append(ownMillis / 1000.0).append(" s each)\n\n");
            md.append("Each thread locks and unlocks one key of its own (the same key every time), empty critical ")
                    .append("section, watchdog lease; raw `lock()` / distlock `exclusive(key).run(...)`, one Redisson client. ")
                    .append("Left = after the run and up to ").append(settleMillis).append(" ms of settling.\n\n");
            md.append("| impl | threads | ops/s | failures | lock keys left | channels left | local queues left | distlock/raw |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
            ownRow(md, ownRaw, "");
            ownRow(md, ownDistlock, String.format("%.2f", ownDistlock.throughput() / ownRaw.throughput()));
            md.append('\n');
            problems.addAll(ownRaw.problems());
            problems.addAll(ownDistlock.problems());

            ManyKeysDriver.ContendedRow hotRaw = driver.contended("raw", keys, callers, pool, holdMicros, wait, warmupKeys);
            System.out.println("many keys, contended: " + hotRaw);
            ManyKeysDriver.ContendedRow hotDistlock = driver.contended("distlock", keys, callers, pool, holdMicros, wait, warmupKeys);
            System.out.println("many keys, contended: " + hotDistlock);
            md.append("### Many keys (b): ").append(String.format("%,d", keys)).append(" keys × ").append(callers)
                    .append(" callers at once (pool of ").append(pool).append(" threads, lock held ")
                    .append(holdMicros / 1000.0).append(" ms)\n\n");
            md.append("All ").append(String.format("%,d", keys * callers)).append(" calls submitted together; the callers ")
                    .append("of a key meet, then ask for its lock (raw `tryLock(30 s)` / distlock `exclusive(key).waitTime(30 s)`, ")
                    .append("watchdog lease)").append(warmupKeys > 0 ? ", after an uncounted round on " + warmupKeys + " other keys" : "")
                    .append(". Violations: two holders of a key at once (in-memory check). Left = lock keys in Redis, ")
                    .append("pub/sub channels with a subscriber, distlock local queues, after up to ").append(settleMillis)
                    .append(" ms of settling.\n\n");
            md.append("| impl | total s | locks/s | failures | violations | lock keys left | channels left | local queues left | distlock/raw |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            contendedRow(md, hotRaw, "");
            contendedRow(md, hotDistlock, String.format("%.2f", hotDistlock.throughput() / hotRaw.throughput()));
            md.append('\n');
            problems.addAll(hotRaw.problems());
            problems.addAll(hotDistlock.problems());
        }
        if (!problems.isEmpty()) {
            System.out.println(md.substring(start));
            throw new IllegalStateException("many-keys invariants broken: " + String.join("; ", problems));
        }
    }

    private static void ownRow(StringBuilder md, ManyKeysDriver.OwnKeysRow row, String ratio) {
        md.append("| ").append(row.impl()).append(" | ").append(row.threads()).append(" | ")
                .append(String.format("%,.0f", row.throughput())).append(" | ").append(row.failures()).append(" | ");
        leftovers(md, row.impl(), row.leftovers());
        md.append(ratio).append(" |\n");
    }

    private static void contendedRow(StringBuilder md, ManyKeysDriver.ContendedRow row, String ratio) {
        md.append("| ").append(row.impl()).append(" | ").append(String.format("%.2f", row.seconds())).append(" | ")
                .append(String.format("%,.0f", row.throughput())).append(" | ").append(row.failures()).append(" | ")
                .append(row.violations()).append(" | ");
        leftovers(md, row.impl(), row.leftovers());
        md.append(ratio).append(" |\n");
    }

    private static void leftovers(StringBuilder md, String impl, ManyKeysDriver.Leftovers left) {
        md.append(left.lockKeys()).append(" | ").append(left.channels()).append(" | ")
                .append(impl.equals("raw") ? "-" : Integer.toString(left.localQueues())).append(" | ");
    }
}
