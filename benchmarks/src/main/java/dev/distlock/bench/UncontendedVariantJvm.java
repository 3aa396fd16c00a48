package dev.distlock.bench;

import dev.distlock.testkit.Quantiles;
import org.openjdk.jmh.infra.Blackhole;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The JVM of one {@link UncontendedAb} variant ({@code UncontendedAb child <variant> <redis url>}):
 * sets up the variant, then runs slices when told to over standard input, timing each call.
 */
final class UncontendedVariantJvm {

    private UncontendedVariantJvm() {
    }

    /** Sets up {@code variant} on the Redis at {@code redisUrl}, serves the driver until EXIT or the end of its input, then exits. */
    static void run(String variant, String redisUrl) throws IOException {
        PrintStream out = System.out;
        System.setProperty(BenchRedis.PROPERTY, redisUrl);
        LockedBeanBenchmark bench = new LockedBeanBenchmark();
        bench.keys = "same";
        bench.setUp();
        Blackhole hole = new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        Runnable call = switch (variant) {
            case "raw" -> () -> bench.rawRLock(hole);
            case "locked" -> () -> bench.lockedMethod(hole);
            case "programmatic" -> () -> bench.programmatic(hole);
            default -> throw new IllegalArgumentException("unknown variant " + variant);
        };
        long[] nanos = new long[1 << 16];
        long[] scratch = new long[1 << 10];
        int count = 0;
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long processCpu = 0;
        long callerCpu = 0;
        long jitMillis = 0;
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("READY");
        out.flush();
        try {
            String command;
            while ((command = commands.readLine()) != null && !command.equals("EXIT")) {
                if (command.equals("REPORT")) {
                    long[] measured = Arrays.copyOf(nanos, count);
                    Arrays.sort(measured);
                    out.printf("RESULT %d %.2f %.2f %.2f %d %d %d%n", count, Quantiles.nearestRank(measured, 0.5) / 1000.0,
                            Arrays.stream(measured).average().orElse(Double.NaN) / 1000.0, Quantiles.nearestRank(measured, 0.9) / 1000.0,
                            processCpu, callerCpu, jitMillis);
                    out.flush();
                    continue;
                }
                String[] parts = command.split(" ");
                int calls = Integer.parseInt(parts[1]);
                boolean measured = parts[0].equals("RUN");
                // Warm-up runs the very loop that is measured, so that the code measured is the
                // code the warm-up compiled (a loop of its own would be compiled afresh, and its
                // callees' profiles disturbed, during the measured rounds).
                long[] into = measured ? nanos : scratch;
                int from = measured ? count : 0;
                if (from + calls > into.length) {
                    into = Arrays.copyOf(into, Math.max(into.length * 2, from + calls));
                }
                long processBefore = os.getProcessCpuTime();
                long callerBefore = threads.getCurrentThreadCpuTime();
                long jitBefore = jit.getTotalCompilationTime();
                timeCalls(call, calls, into, from);
                long jitUsed = jit.getTotalCompilationTime() - jitBefore;
                long callerUsed = threads.getCurrentThreadCpuTime() - callerBefore;
                long processUsed = os.getProcessCpuTime() - processBefore;
                if (measured) {
                    nanos = into;
                    count += calls;
                    callerCpu += callerUsed;
                    processCpu += processUsed;
                    jitMillis += jitUsed;
                } else {
                    scratch = into;
                }
                out.println("DONE");
                out.flush();
            }
        } finally {
            bench.tearDown();
        }
        System.exit(0);
    }

    /** Makes {@code calls} calls, writing each one's time into {@code nanos} from {@code from} on. */
    private static void timeCalls(Runnable call, int calls, long[] nanos, int from) {
        for (int i = 0; i < calls; i++) {
            long started = System.nanoTime();
            call.run();
            nanos[from + i] = System.nanoTime() - started;
        }
    }
}
