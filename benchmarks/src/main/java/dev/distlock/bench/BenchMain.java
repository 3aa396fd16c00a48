package dev.distlock.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * Runs everything and prints markdown: the JMH benchmarks ({@link LockBenchmark},
 * {@link LockedBeanBenchmark}, {@link IdBenchmark}), the multi-process hot-key driver
 * ({@link HotKeyDriver}), the many-keys driver ({@link ManyKeysDriver}) and the segment-id latency
 * driver ({@link IdLatencyDriver}), distlock next to raw Redisson. Each part is a section of its own
 * ({@link JmhSection}, {@link UncontendedSection}, {@link HotKeySection}, {@link ManyKeysSection},
 * {@link IdLatencySection}, {@link BackendsSection}), run in that order.
 *
 * <p>System properties: {@code bench.quick=true} (one very short iteration of everything, a smoke
 * check), {@code bench.warmup} / {@code bench.measure} (iterations of 1 s, default 3 / 5),
 * {@code bench.forks} (default 1), {@code bench.hot.seconds} (default 5), {@code bench.hot.rounds}
 * (default 3), {@code bench.hot.threads} (default 1,4,16,64), {@code bench.hot.jvms} (default 2),
 * {@code bench.hot.fenced} (default true: fenced rows too), {@code bench.keys.*} (see
 * {@link ManyKeysSection}), {@code bench.ids.calls} (default 2,000,000), {@code bench.ids.delay.ms}
 * (default 2), {@code bench.backends.*} (see {@link BackendsSection}), {@code bench.only} (jmh | uncontended |
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
            JmhSection.append(md, url, quick);
        }
        if (only.isEmpty() || only.equals("uncontended")) {
            UncontendedSection.append(md, url, quick);
        }
        if (only.isEmpty() || only.equals("hot")) {
            HotKeySection.append(md, url, quick);
        }
        if (only.isEmpty() || only.equals("keys")) {
            ManyKeysSection.append(md, url, quick);
        }
        if (only.isEmpty() || only.equals("ids")) {
            IdLatencySection.append(md, url, quick);
        }
        if (only.isEmpty() || only.equals("backends")) {
            BackendsSection.append(md, url, quick);
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
}
