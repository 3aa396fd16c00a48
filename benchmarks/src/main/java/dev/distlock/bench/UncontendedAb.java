package dev.distlock.bench;

import org.openjdk.jmh.infra.Blackhole;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Uncontended calls, one JVM per variant, the JVMs taking turns. Two noises swamp a 5 % question
 * on a shared 2-core machine: the machine's speed drifts by tens of percent within minutes, so
 * variants measured one after the other (JMH's forks) differ by when they ran; and variants
 * interleaved in one JVM share its JIT profiles, so each slows the others' compiled code (Redisson's
 * hot methods see every variant's callers and are recompiled again and again).
 *
 * <p>Here each variant of {@link LockedBeanBenchmark} runs in a JVM of its own, as it would in an
 * application (raw {@code RLock} on the client distlock built, {@code @Locked} through Weld, the
 * programmatic call; watchdog lease, one key per JVM), and the driver lets them run in short
 * slices, one JVM at a time, in a rotating order, while the others wait on a pipe. Every JVM
 * therefore sees the same machine, and its own JIT profile. Each call is timed; per variant the
 * median, mean and p90 over all measured calls are reported, and the ratios to raw's.
 *
 * <p>Run: {@code cd benchmarks && java -cp "target/classes:$(cat target/classpath.txt)"
 * dev.distlock.bench.UncontendedAb [rounds] [calls per slice] [warm-up rounds]} (defaults 40,
 * 500, 80) runs one set of JVMs; {@code ./bench.sh} runs three sets as its "uncontended" part.
 */
public final class UncontendedAb {

    /** The variants, by the name the child is started with. */
    static final List<String> VARIANTS = List.of("raw", "locked", "programmatic");
    private static final List<String> LABELS = List.of("raw RLock.lock()/unlock()", "@Locked method through Weld",
            "DistributedLocks.exclusive(k).run(...)");

    /** What one variant measured. */
    public record Row(String variant, String label, long calls, double medianMicros, double meanMicros, double p90Micros) {
    }

    private UncontendedAb() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(args[1], args[2]);
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int slice = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        int warmRounds = args.length > 2 ? Integer.parseInt(args[2]) : 80;
        List<Row> rows = run(BenchRedis.url(), rounds, slice, warmRounds);
        System.out.println(format(rows));
        System.exit(0);
    }

    /**
     * Starts one JVM per variant, warms them up, measures, and returns the rows, raw's first.
     *
     * @throws IllegalStateException if a JVM measured another number of calls than it was given
     */
    public static List<Row> run(String redisUrl, int rounds, int slice, int warmRounds) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Child> children = new ArrayList<>();
        try {
            for (String variant : VARIANTS) {
                ProcessBuilder builder = new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                        UncontendedAb.class.getName(), "child", variant, redisUrl);
                builder.redirectErrorStream(true);
                children.add(new Child(variant, builder.start()));
            }
            for (Child child : children) {
                child.await("READY");
            }
            for (int round = 0; round < warmRounds + rounds; round++) {
                String command = (round < warmRounds ? "WARM " : "RUN ") + slice;
                for (int turn = 0; turn < children.size(); turn++) {
                    Child child = children.get((round + turn) % children.size());
                    child.send(command);
                    child.await("DONE");
                }
            }
            List<Row> rows = new ArrayList<>();
            for (int i = 0; i < children.size(); i++) {
                Child child = children.get(i);
                child.send("REPORT");
                String[] result = child.await("RESULT").split(" ");
                if (Long.parseLong(result[1]) != (long) rounds * slice) {
                    throw new IllegalStateException("the " + child.variant + " JVM measured " + result[1] + " calls, not "
                            + (long) rounds * slice);
                }
                rows.add(new Row(child.variant, LABELS.get(i), Long.parseLong(result[1]), Double.parseDouble(result[2]),
                        Double.parseDouble(result[3]), Double.parseDouble(result[4])));
            }
            return rows;
        } finally {
            for (Child child : children) {
                child.close();
            }
        }
    }

    /** The markdown table of a run: per variant, per-call times and the ratios to raw. */
    static String format(List<Row> rows) {
        Row raw = rows.get(0);
        StringBuilder md = new StringBuilder();
        md.append("| variant | calls | median µs | mean µs | p90 µs | median / raw | mean / raw |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            md.append(String.format("| %s | %,d | %.1f | %.1f | %.1f | %.3f | %.3f |%n", row.label(), row.calls(),
                    row.medianMicros(), row.meanMicros(), row.p90Micros(), row.medianMicros() / raw.medianMicros(),
                    row.meanMicros() / raw.meanMicros()));
        }
        return md.toString();
    }

    /** Across sets: each variant's median / raw and mean / raw, per set and their median. */
    static String summary(List<List<Row>> sets) {
        StringBuilder text = new StringBuilder("Across the sets, time per call relative to raw (median over the sets; each set's value in brackets):");
        for (int variant = 1; variant < VARIANTS.size(); variant++) {
            double[] medians = new double[sets.size()];
            double[] means = new double[sets.size()];
            for (int set = 0; set < sets.size(); set++) {
                List<Row> rows = sets.get(set);
                medians[set] = rows.get(variant).medianMicros() / rows.get(0).medianMicros();
                means[set] = rows.get(variant).meanMicros() / rows.get(0).meanMicros();
            }
            text.append(String.format(" %s: median %.3f %s, mean %.3f %s;", LABELS.get(variant), middle(medians),
                    list(medians), middle(means), list(means)));
        }
        return text.substring(0, text.length() - 1) + ".";
    }

    private static double middle(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String list(double[] values) {
        StringBuilder text = new StringBuilder("[");
        for (double value : values) {
            text.append(text.length() > 1 ? ", " : "").append(String.format("%.3f", value));
        }
        return text.append(']').toString();
    }

    /** One variant's JVM, driven over its standard input and output. */
    private static final class Child implements AutoCloseable {
        private final String variant;
        private final Process process;
        private final BufferedReader output;
        private final Writer input;
        private final StringBuilder seen = new StringBuilder();

        Child(String variant, Process process) {
            this.variant = variant;
            this.process = process;
            this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        void send(String line) throws IOException {
            input.write(line + "\n");
            input.flush();
        }

        /** @return the first line starting with {@code word}; other lines are kept for the error message */
        String await(String word) throws IOException {
            String line;
            while ((line = output.readLine()) != null) {
                if (line.startsWith(word)) {
                    return line;
                }
                seen.append(line).append('\n');
            }
            throw new IllegalStateException("the " + variant + " JVM ended before it said " + word + "; its output:\n" + seen);
        }

        @Override
        public void close() throws InterruptedException {
            try {
                send("EXIT");
            } catch (IOException gone) {
                // it has ended already
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /** The child: sets up the variant, then runs slices when told to, timing each call. */
    private static void child(String variant, String redisUrl) throws IOException {
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
        int count = 0;
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("READY");
        out.flush();
        try {
            String command;
            while ((command = commands.readLine()) != null && !command.equals("EXIT")) {
                if (command.equals("REPORT")) {
                    long[] measured = Arrays.copyOf(nanos, count);
                    Arrays.sort(measured);
                    out.printf("RESULT %d %.2f %.2f %.2f%n", count, percentile(measured, 0.5) / 1000.0,
                            Arrays.stream(measured).average().orElse(Double.NaN) / 1000.0, percentile(measured, 0.9) / 1000.0);
                    out.flush();
                    continue;
                }
                String[] parts = command.split(" ");
                int calls = Integer.parseInt(parts[1]);
                if (parts[0].equals("WARM")) {
                    for (int i = 0; i < calls; i++) {
                        call.run();
                    }
                } else {
                    if (count + calls > nanos.length) {
                        nanos = Arrays.copyOf(nanos, Math.max(nanos.length * 2, count + calls));
                    }
                    for (int i = 0; i < calls; i++) {
                        long started = System.nanoTime();
                        call.run();
                        nanos[count++] = System.nanoTime() - started;
                    }
                }
                out.println("DONE");
                out.flush();
            }
        } finally {
            bench.tearDown();
        }
        System.exit(0);
    }

    /** {@code sorted} must be sorted. */
    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}
