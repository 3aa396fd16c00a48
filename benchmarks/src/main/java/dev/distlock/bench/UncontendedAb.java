package dev.distlock.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
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
 * programmatic call; watchdog lease, one key per JVM: {@link UncontendedVariantJvm}), and the
 * driver lets them run in short slices, one JVM at a time, in an order shuffled every round, while
 * the others wait on a pipe. Every JVM therefore sees the same machine, and its own JIT profile.
 * Each call is timed; per variant the mean (time per call), median and p90 over all measured calls
 * are reported, with the ratios to raw's, and what each call cost in CPU and in Redis commands
 * ({@link RedisUsage}).
 *
 * <p>A JVM still carries luck of its own for its whole life (where its threads land on the two
 * cores, what its compiler made of the code), worth several percent: raw runs in a second JVM
 * too, as a control that shows this spread in the same run, and {@code ./bench.sh} runs several
 * sets of fresh JVMs and reports the median over them.
 *
 * <p>Run: {@code cd benchmarks && java -cp "target/classes:$(cat target/classpath.txt)"
 * dev.distlock.bench.UncontendedAb [rounds] [calls per slice] [warm-up rounds]} (defaults 40,
 * 500, 80) runs one set of JVMs; {@code ./bench.sh} runs five sets as its "uncontended" part.
 */
public final class UncontendedAb {

    /**
     * The JVMs of a set, by the variant each runs. Raw runs twice, in two JVMs: the second's ratio
     * to the first shows how far two JVMs running the same code differ on this machine in this run,
     * the measurement's own spread, against which the other ratios are to be read.
     */
    static final List<String> VARIANTS = List.of("raw", "raw", "locked", "programmatic");
    private static final List<String> LABELS = List.of("raw RLock.lock()/unlock()", "raw again, in a second JVM (control)",
            "@Locked method through Weld", "DistributedLocks.exclusive(k).run(...)");

    /** What one variant measured. */
    public record Row(String variant, String label, long calls, double medianMicros, double meanMicros, double p90Micros,
                      Cost cost) {
    }

    /**
     * Where a variant's time per call goes, averaged over its measured calls: CPU of its JVM (all
     * threads: caller, Redisson's event loop, timers, JIT, GC) and of the calling thread alone, and
     * in Redis the commands it received and the CPU Redis used meanwhile. Only one JVM runs at a
     * time, so Redis's figures belong to the variant whose turn it was.
     */
    public record Cost(double processCpuMicros, double callerCpuMicros, double redisCommands, double redisCpuMicros,
                       long jitMillis) {
    }

    private UncontendedAb() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            UncontendedVariantJvm.run(args[1], args[2]);
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
            // A new order every round: a JVM's turn is slowed by what the one before it left running
            // (compilations, timers), so no variant may always follow the same other.
            List<Child> order = new ArrayList<>(children);
            Random shuffle = new Random(42);
            try (RedisUsage redisUsage = new RedisUsage(redisUrl)) {
                for (int round = 0; round < warmRounds + rounds; round++) {
                    boolean measured = round >= warmRounds;
                    String command = (measured ? "RUN " : "WARM ") + slice;
                    Collections.shuffle(order, shuffle);
                    for (Child child : order) {
                        long[] before = measured ? redisUsage.read() : null;
                        child.send(command);
                        child.await("DONE");
                        if (measured) {
                            long[] after = redisUsage.read();
                            // less the INFO that took the first reading, counted once it had answered
                            child.redisCommands += after[0] - before[0] - 1;
                            child.redisCpuMicros += after[1] - before[1];
                        }
                    }
                }
            }
            List<Row> rows = new ArrayList<>();
            for (int i = 0; i < children.size(); i++) {
                Child child = children.get(i);
                child.send("REPORT");
                String[] result = child.await("RESULT").split(" ");
                long calls = Long.parseLong(result[1]);
                if (calls != (long) rounds * slice) {
                    throw new IllegalStateException("the JVM of '" + LABELS.get(i) + "' measured " + calls + " calls, not "
                            + (long) rounds * slice);
                }
                Cost cost = new Cost(Long.parseLong(result[5]) / 1000.0 / calls, Long.parseLong(result[6]) / 1000.0 / calls,
                        (double) child.redisCommands / calls, (double) child.redisCpuMicros / calls, Long.parseLong(result[7]));
                rows.add(new Row(child.variant, LABELS.get(i), calls, Double.parseDouble(result[2]),
                        Double.parseDouble(result[3]), Double.parseDouble(result[4]), cost));
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
        md.append("| variant | calls | mean µs | median µs | p90 µs | mean / raw | median / raw "
                + "| JVM CPU µs | caller CPU µs | Redis commands | Redis CPU µs | JIT ms |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            Cost cost = row.cost();
            md.append(String.format("| %s | %,d | %.1f | %.1f | %.1f | %.3f | %.3f | %.1f | %.1f | %.2f | %.1f | %,d |%n",
                    row.label(), row.calls(), row.meanMicros(), row.medianMicros(), row.p90Micros(),
                    row.meanMicros() / raw.meanMicros(), row.medianMicros() / raw.medianMicros(),
                    cost.processCpuMicros(), cost.callerCpuMicros(), cost.redisCommands(), cost.redisCpuMicros(), cost.jitMillis()));
        }
        md.append("\nMean: time per call, the calls' total time over their number. CPU and commands per call (JVM: "
                + "all its threads; Redis: while that JVM had its turn, commands run inside scripts included); JIT: time "
                + "the JVM's compiler threads spent during its measured turns.\n");
        return md.toString();
    }

    /**
     * Across sets: each variant's time per call relative to raw (the mean: the calls' total time
     * over their number), then its median call relative to raw's; each the median over the sets,
     * with every set's value.
     */
    static String summary(List<List<Row>> sets) {
        StringBuilder text = new StringBuilder("Across the sets, time per call (mean) relative to raw, median over the "
                + "sets, each set's value in brackets:");
        appendRatios(text, sets, Row::meanMicros);
        text.append(" Median call relative to raw's, likewise:");
        appendRatios(text, sets, Row::medianMicros);
        return text.toString();
    }

    private static void appendRatios(StringBuilder text, List<List<Row>> sets, java.util.function.ToDoubleFunction<Row> measure) {
        for (int variant = 1; variant < VARIANTS.size(); variant++) {
            double[] ratios = new double[sets.size()];
            for (int set = 0; set < sets.size(); set++) {
                List<Row> rows = sets.get(set);
                ratios[set] = measure.applyAsDouble(rows.get(variant)) / measure.applyAsDouble(rows.get(0));
            }
            text.append(String.format(" %s %.3f %s%s", LABELS.get(variant), middle(ratios), list(ratios),
                    variant == VARIANTS.size() - 1 ? "." : ";"));
        }
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
        /** What Redis received and spent during this JVM's measured turns. */
        private long redisCommands;
        private long redisCpuMicros;

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
}
