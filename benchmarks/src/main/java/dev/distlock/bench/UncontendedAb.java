package dev.distlock.bench;

import org.openjdk.jmh.infra.Blackhole;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Uncontended calls, interleaved: on a shared 2-core machine, JMH's one-benchmark-after-another
 * runs see the load change between benchmarks, and the errors swamp a 5 % question. Here the three
 * variants of {@link LockedBeanBenchmark} (raw {@code RLock}, {@code @Locked} through Weld, the
 * programmatic call; same client, same engine, watchdog lease, one key) take turns in short
 * rounds, in a rotating order, so that each round compares them under the same load; the medians
 * over the rounds of the per-round ratios are reported.
 *
 * <p>Run: {@code cd benchmarks && java -cp "target/classes:$(cat target/classpath.txt)"
 * dev.distlock.bench.UncontendedAb [rounds] [calls per round]} (defaults 30 and 400).
 */
public final class UncontendedAb {

    private UncontendedAb() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        LockedBeanBenchmark bench = new LockedBeanBenchmark();
        bench.keys = "same";
        bench.setUp();
        Blackhole hole = new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        try {
            List<Runnable> variants = List.of(() -> bench.rawRLock(hole), () -> bench.lockedMethod(hole), () -> bench.programmatic(hole),
                    () -> bench.programmaticInBean(hole));
            for (int warm = 0; warm < 3; warm++) {
                for (Runnable variant : variants) {
                    repeat(variant, calls);
                }
            }
            double[] lockedRatio = new double[rounds];
            double[] programmaticRatio = new double[rounds];
            double[] inBeanRatio = new double[rounds];
            double[] rawMicros = new double[rounds];
            for (int round = 0; round < rounds; round++) {
                double[] micros = new double[4];
                for (int turn = 0; turn < 4; turn++) {
                    int variant = (round + turn) % 4;
                    micros[variant] = repeat(variants.get(variant), calls);
                }
                rawMicros[round] = micros[0];
                lockedRatio[round] = micros[1] / micros[0];
                programmaticRatio[round] = micros[2] / micros[0];
                inBeanRatio[round] = micros[3] / micros[0];
            }
            System.out.printf("rounds %d x %d calls; raw median %.1f µs/call; time / raw time, median (p25..p75): "
                            + "@Locked %.3f (%.3f..%.3f), programmatic %.3f (%.3f..%.3f), programmatic in a bean %.3f (%.3f..%.3f)%n",
                    rounds, calls, percentile(rawMicros, 0.5),
                    percentile(lockedRatio, 0.5), percentile(lockedRatio, 0.25), percentile(lockedRatio, 0.75),
                    percentile(programmaticRatio, 0.5), percentile(programmaticRatio, 0.25), percentile(programmaticRatio, 0.75),
                    percentile(inBeanRatio, 0.5), percentile(inBeanRatio, 0.25), percentile(inBeanRatio, 0.75));
        } finally {
            bench.tearDown();
        }
        System.exit(0);
    }

    /** @return µs per call */
    private static double repeat(Runnable call, int times) {
        long started = System.nanoTime();
        for (int i = 0; i < times; i++) {
            call.run();
        }
        return (System.nanoTime() - started) / 1000.0 / times;
    }

    private static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}
