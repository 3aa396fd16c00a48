package dev.distlock.bench;

import dev.distlock.DistributedLocks;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Hot key across processes: N child JVMs, each with T threads, all locking ONE key for a fixed
 * duration. The critical section is three Redis commands: compare-and-set an "inside" marker from 0
 * to the holder's token (fails = someone else is inside = violation), INCR a counter, and
 * compare-and-set the marker back to 0. Run once with raw Redisson {@code RLock.lock()/unlock()} and once
 * with distlock {@code exclusive(key).waitForever().run(...)}, both with the watchdog lease.
 */
public final class HotKeyDriver {

    /** {@code counter}: the Redis counter minus sections that finished after the deadline; must equal {@code ops}. */
    public record Row(String impl, int jvms, int threads, double seconds, long ops, long counter,
                      long violations, double p50Micros, double p99Micros, long[] opsPerJvm) {
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
        for (int jvm = 0; jvm < jvms; jvm++) {
            Path waits = workDir.resolve(impl + "-t" + threads + "-jvm" + jvm + ".waits");
            waitFiles.add(waits);
            ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-cp", classpath, HotKeyDriver.class.getName(),
                    impl, redisUrl, key, Integer.toString(jvm), Integer.toString(threads),
                    Long.toString(millis), waits.toString());
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
            redisson.getKeys().delete(key + ":count", key + ":inside");
        } finally {
            redisson.shutdown();
        }
        long[] waits = readWaits(waitFiles);
        Arrays.sort(waits);
        return new Row(impl, jvms, threads, millis / 1000.0, ops, counter - late, violations,
                percentile(waits, 0.50) / 1000.0, percentile(waits, 0.99) / 1000.0, opsPerJvm);
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

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
        return sorted[Math.max(0, index)];
    }

    /** Child JVM: impl redisUrl key jvmIndex threads durationMillis waitsFile; prints READY, starts on GO from stdin. */
    public static void main(String[] args) throws Exception {
        String impl = args[0];
        String redisUrl = args[1];
        String key = args[2];
        int jvm = Integer.parseInt(args[3]);
        int threads = Integer.parseInt(args[4]);
        long millis = Long.parseLong(args[5]);
        File waitsFile = new File(args[6]);

        RedissonClient redisson = BenchRedis.newClient(redisUrl, Math.max(16, threads * 2 + 4));
        DistributedLocks locks = DistributedLocks.builder(redisson).keyPrefix("bench-distlock").build();
        RAtomicLong inside = redisson.getAtomicLong(key + ":inside");
        RAtomicLong counter = redisson.getAtomicLong(key + ":count");
        RLock rawLock = redisson.getLock("bench-raw:" + key);
        inside.isExists(); // warm the connections
        rawLock.isLocked();
        locks.exclusive(key + ":warm").run(() -> { });
        System.out.println("READY");
        System.out.flush();
        String go = new BufferedReader(new InputStreamReader(System.in)).readLine();
        if (!"GO".equals(go)) {
            throw new IllegalStateException("expected GO, got " + go);
        }

        long[] opsPerThread = new long[threads];
        long[] late = new long[threads];
        long[] violationsPerThread = new long[threads];
        long[][] waitsPerThread = new long[threads][];
        int[] waitCounts = new int[threads];
        CountDownLatch done = new CountDownLatch(threads);
        long endNanos = System.nanoTime() + millis * 1_000_000L;
        for (int t = 0; t < threads; t++) {
            int index = t;
            long token = ((long) (jvm + 1) << 32) | (index + 1);
            Thread thread = new Thread(() -> {
                long[] waits = new long[4096];
                int count = 0;
                long ops = 0;
                long[] violations = new long[1];
                Runnable critical = () -> {
                    if (!inside.compareAndSet(0, token)) {
                        violations[0]++;
                    }
                    counter.incrementAndGet();
                    if (!inside.compareAndSet(token, 0)) {
                        violations[0]++;
                    }
                };
                try {
                    while (System.nanoTime() < endNanos) {
                        long before = System.nanoTime();
                        if ("raw".equals(impl)) {
                            rawLock.lock();
                            try {
                                waits = record(waits, count++, System.nanoTime() - before);
                                critical.run();
                            } finally {
                                rawLock.unlock();
                            }
                        } else {
                            long[][] box = {waits};
                            int at = count++;
                            locks.exclusive(key).waitForever().run(() -> {
                                box[0] = record(box[0], at, System.nanoTime() - before);
                                critical.run();
                            });
                            waits = box[0];
                        }
                        if (System.nanoTime() <= endNanos) {
                            ops++;
                        } else {
                            late[index]++; // finished after the deadline: in the counter, not in the throughput
                        }
                    }
                } finally {
                    opsPerThread[index] = ops;
                    violationsPerThread[index] = violations[0];
                    waitsPerThread[index] = waits;
                    waitCounts[index] = count;
                    done.countDown();
                }
            }, "hot-" + t);
            thread.start();
        }
        done.await();
        long ops = Arrays.stream(opsPerThread).sum();
        long violations = Arrays.stream(violationsPerThread).sum();
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(waitsFile)))) {
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < waitCounts[t]; i++) {
                    out.writeLong(waitsPerThread[t][i]);
                }
            }
        }
        redisson.shutdown();
        System.out.println("RESULT " + ops + " " + violations + " " + Arrays.stream(late).sum());
        System.out.flush();
        System.exit(0);
    }

    private static long[] record(long[] waits, int at, long nanos) {
        if (at >= waits.length) {
            waits = Arrays.copyOf(waits, waits.length * 2);
        }
        waits[at] = nanos;
        return waits;
    }
}
