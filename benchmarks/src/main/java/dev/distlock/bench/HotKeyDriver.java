package dev.distlock.bench;

import dev.distlock.testkit.Quantiles;
import org.redisson.api.RedissonClient;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Hot key across processes: N child JVMs ({@link HotKeyChild}), each with T threads
 * ({@link HotKeyContenders}), all locking ONE key for a fixed duration. The critical section is one
 * Redis {@code INCR}, between entering and leaving an "inside" marker that all children share
 * through a memory-mapped file ({@link InsideMarker}: a failed compare-and-set there = two holders
 * at once = a violation). Run once with raw Redisson {@code RLock.lock()/unlock()} and once with
 * distlock {@code exclusive(key).waitForever().run(...)}, both with the watchdog lease. Each child
 * first warms up on a key of its own.
 */
public final class HotKeyDriver {

    /** {@code counter}: the Redis counter minus sections that finished after the deadline; must equal {@code ops}. */
    public record Row(String impl, int jvms, int threads, double seconds, long ops, long counter,
                      long violations, double p50Micros, double p99Micros, long[] opsPerJvm, long handoffs) {
        double throughput() {
            return ops / seconds;
        }

        String shares() {
            StringBuilder text = new StringBuilder();
            for (long jvmOps : opsPerJvm) {
                if (text.length() > 0) {
                    text.append(" / ");
                }
                text.append(ops == 0 ? "-" : String.format("%.0f%%", 100.0 * jvmOps / ops));
            }
            return text.toString();
        }
    }

    private HotKeyDriver() {
    }

    /** Runs one configuration: {@code jvms} children × {@code threads} threads for {@code millis}. */
    public static Row run(String impl, String redisUrl, int jvms, int threads, long millis, Path workDir)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        String key = "bench-hot-" + UUID.randomUUID().toString().substring(0, 8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("java.class.path");
        List<Process> children = new ArrayList<>();
        List<Path> waitFiles = new ArrayList<>();
        Path marker = workDir.resolve(impl + "-t" + threads + ".inside");
        Files.write(marker, new byte[InsideMarker.MARKER_BYTES]);
        for (int jvm = 0; jvm < jvms; jvm++) {
            Path waits = workDir.resolve(impl + "-t" + threads + "-jvm" + jvm + ".waits");
            waitFiles.add(waits);
            List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", classpath));
            System.getProperties().stringPropertyNames().stream()
                    .filter(name -> name.startsWith("distlock.") || name.startsWith("bench.handoff"))
                    .forEach(name -> command.add("-D" + name + "=" + System.getProperty(name)));
            command.addAll(List.of(HotKeyChild.class.getName(), impl, redisUrl, key, Integer.toString(jvm),
                    Integer.toString(threads), Long.toString(millis), waits.toString(), marker.toString()));
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.redirectErrorStream(true);
            children.add(builder.start());
        }
        // Start together: every child connects and says READY, then all get GO at once.
        List<BufferedReader> readers = new ArrayList<>();
        List<StringBuilder> outputs = new ArrayList<>();
        for (Process child : children) {
            BufferedReader reader = new BufferedReader(new InputStreamReader(child.getInputStream()));
            StringBuilder output = new StringBuilder();
            String line;
            while ((line = reader.readLine()) != null && !line.equals("READY")) {
                output.append(line).append('\n');
            }
            if (line == null) {
                throw new IllegalStateException("child JVM exited before it was ready; its output:\n" + output);
            }
            readers.add(reader);
            outputs.add(output);
        }
        for (Process child : children) {
            child.getOutputStream().write("GO\n".getBytes());
            child.getOutputStream().flush();
        }
        long ops = 0;
        long violations = 0;
        long late = 0;
        long handoffs = 0;
        long[] opsPerJvm = new long[jvms];
        for (int jvm = 0; jvm < jvms; jvm++) {
            Process child = children.get(jvm);
            StringBuilder output = outputs.get(jvm);
            boolean found = false;
            try (BufferedReader reader = readers.get(jvm)) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (line.startsWith("RESULT ")) {
                        String[] parts = line.split(" ");
                        opsPerJvm[jvm] = Long.parseLong(parts[1]);
                        violations += Long.parseLong(parts[2]);
                        late += Long.parseLong(parts[3]);
                        handoffs += Long.parseLong(parts[4]);
                        found = true;
                    } else {
                        output.append(line).append('\n');
                    }
                }
            }
            if (!child.waitFor(millis + 120_000, TimeUnit.MILLISECONDS)) {
                child.destroyForcibly();
            }
            if (!found) {
                throw new IllegalStateException("child JVM " + jvm + " gave no result; its output:\n" + output);
            }
            ops += opsPerJvm[jvm];
        }
        long counter;
        RedissonClient redisson = BenchRedis.newClient(redisUrl, 2);
        try {
            counter = redisson.getAtomicLong(key + ":count").get();
            redisson.getKeys().delete(key + ":count");
        } finally {
            redisson.shutdown();
        }
        Files.deleteIfExists(marker);
        long[] waits = readWaits(waitFiles);
        Arrays.sort(waits);
        return new Row(impl, jvms, threads, millis / 1000.0, ops, counter - late, violations,
                quantileMicros(waits, 0.50), quantileMicros(waits, 0.99), opsPerJvm, handoffs);
    }

    private static long[] readWaits(List<Path> files) throws IOException {
        long[] all = new long[1024];
        int size = 0;
        for (Path file : files) {
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(file.toFile())))) {
                while (true) {
                    long value;
                    try {
                        value = in.readLong();
                    } catch (EOFException end) {
                        break;
                    }
                    if (size == all.length) {
                        all = Arrays.copyOf(all, size * 2);
                    }
                    all[size++] = value;
                }
            }
            Files.deleteIfExists(file);
        }
        return Arrays.copyOf(all, size);
    }

    private static double quantileMicros(long[] sortedNanos, double q) {
        return sortedNanos.length == 0 ? Double.NaN : Quantiles.nearestRank(sortedNanos, q) / 1000.0;
    }
}
