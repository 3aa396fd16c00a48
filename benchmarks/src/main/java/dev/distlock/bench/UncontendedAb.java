package dev.distlock.bench;

import org.openjdk.jmh.infra.Blackhole;

import java.util.Arrays;
import java.util.List;

/**
 * Uncontended calls, interleaved call by call: on a shared 2-core machine, JMH's
 * one-benchmark-after-another runs see the load change between benchmarks, and the errors swamp a
 * 5 % question. Here the variants of {@link LockedBeanBenchmark} (raw {@code RLock}, {@code @Locked}
 * through Weld, the programmatic call, the programmatic call inside a non-intercepted bean method;
 * same client, same engine, watchdog lease, one key each) take turns one call at a time, in a
 * rotating order, so that every variant sees the same load; each call is timed on its own. Printed
 * per variant: median, mean and p90 of the per-call times, and median and mean relative to raw's.
 *
 * <p>Run: {@code cd benchmarks && java -cp "target/classes:$(cat target/classpath.txt)"
 * dev.distlock.bench.UncontendedAb [calls per variant]} (default 20,000).
 */
public final class UncontendedAb {

    private static final List<String> NAMES = List.of("raw RLock", "@Locked", "programmatic", "programmatic in a bean", "raw async + id");

    private UncontendedAb() {
    }

    public static void main(String[] args) {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        LockedBeanBenchmark bench = new LockedBeanBenchmark();
        bench.keys = "same";
        bench.setUp();
        Blackhole hole = new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        try {
            List<Runnable> variants = List.of(() -> bench.rawRLock(hole), () -> bench.lockedMethod(hole), () -> bench.programmatic(hole),
                    () -> bench.programmaticInBean(hole), () -> bench.rawAsyncWithId(hole));
            int count = variants.size();
            String alone = System.getProperty("bench.ab.alone");
            if (alone != null) { // for a profiler: one variant, many calls
                Runnable variant = variants.get(Integer.parseInt(alone));
                for (int call = 0; call < calls; call++) {
                    variant.run();
                }
                return;
            }
            for (int warm = 0; warm < Math.max(2_000, calls / 5); warm++) {
                variants.get(warm % count).run();
            }
            long[][] nanos = new long[count][calls];
            for (int call = 0; call < calls; call++) {
                for (int turn = 0; turn < count; turn++) {
                    int variant = (call + turn) % count;
                    long started = System.nanoTime();
                    variants.get(variant).run();
                    nanos[variant][call] = System.nanoTime() - started;
                }
            }
            double rawMedian = percentile(nanos[0], 0.5);
            double rawMean = mean(nanos[0]);
            System.out.printf("%d calls per variant, interleaved; per call, µs: median / mean / p90; median and mean relative to raw%n", calls);
            for (int variant = 0; variant < count; variant++) {
                double median = percentile(nanos[variant], 0.5);
                double mean = mean(nanos[variant]);
                System.out.printf("  %-24s %7.1f / %7.1f / %7.1f   %.3f  %.3f%n", NAMES.get(variant), median / 1000, mean / 1000,
                        percentile(nanos[variant], 0.9) / 1000, median / rawMedian, mean / rawMean);
            }
            if (Boolean.getBoolean("bench.ab.cpu")) {
                cpu(variants, calls);
            }
        } finally {
            bench.tearDown();
        }
        System.exit(0);
    }

    /** Each variant alone: CPU time of the calling thread and of the whole process, per call. */
    private static void cpu(List<Runnable> variants, int calls) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        System.out.println("each variant alone, CPU µs per call: calling thread / whole process");
        for (int round = 0; round < 2; round++) {
            for (int variant = 0; variant < variants.size(); variant++) {
                long thread = threads.getCurrentThreadCpuTime();
                long process = os.getProcessCpuTime();
                for (int call = 0; call < calls; call++) {
                    variants.get(variant).run();
                }
                System.out.printf("  %-24s %6.1f / %6.1f%n", NAMES.get(variant),
                        (threads.getCurrentThreadCpuTime() - thread) / 1000.0 / calls, (os.getProcessCpuTime() - process) / 1000.0 / calls);
            }
        }
    }

    private static double mean(long[] values) {
        return Arrays.stream(values).average().orElse(Double.NaN);
    }

    private static double percentile(long[] values, double p) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}
