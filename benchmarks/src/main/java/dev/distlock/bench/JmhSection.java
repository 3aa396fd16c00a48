package dev.distlock.bench;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.annotations.Mode;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The JMH part of {@link BenchMain}: runs {@link LockBenchmark}, {@link LockedBeanBenchmark} and
 * {@link IdBenchmark} in one JMH run and appends their tables (system properties
 * {@code bench.warmup}, {@code bench.measure}, {@code bench.forks}).
 */
final class JmhSection {

    private JmhSection() {
    }

    /** Runs the JMH benchmarks, then appends their tables to {@code md}. */
    static void append(StringBuilder md, String url, boolean quick) throws Exception {
        Map<String, RunResult> results = runJmh(url, quick);
        appendJmh(md, results);
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
}
