package dev.distlock.bench;

import dev.distlock.redis.RedisLocks;
import dev.distlock.internal.core.EngineLocks;

import dev.distlock.DistributedLocks;
import dev.distlock.LocalHandoff;
import dev.distlock.testkit.Quantiles;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Hot key across processes: N child JVMs, each with T threads, all locking ONE key for a fixed
 * duration. The critical section is one Redis {@code INCR}, between entering and leaving an
 * "inside" marker that all children share through a memory-mapped file (a failed compare-and-set
 * there = two holders at once = a violation). Run once with raw Redisson
 * {@code RLock.lock()/unlock()} and once with distlock {@code exclusive(key).waitForever().run(...)},
 * both with the watchdog lease. Each child first warms up on a key of its own.
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
        Files.write(marker, new byte[MARKER_BYTES]);
        for (int jvm = 0; jvm < jvms; jvm++) {
            Path waits = workDir.resolve(impl + "-t" + threads + "-jvm" + jvm + ".waits");
            waitFiles.add(waits);
            List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", classpath));
            System.getProperties().stringPropertyNames().stream()
                    .filter(name -> name.startsWith("distlock.") || name.startsWith("bench.handoff"))
                    .forEach(name -> command.add("-D" + name + "=" + System.getProperty(name)));
            command.addAll(List.of(HotKeyDriver.class.getName(), impl, redisUrl, key, Integer.toString(jvm),
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

    /**
     * Child JVM: impl redisUrl key jvmIndex threads durationMillis waitsFile markerFile; warms up,
     * prints READY, starts on GO from stdin.
     */
    public static void main(String[] args) throws Exception {
        String impl = args[0];
        String redisUrl = args[1];
        String key = args[2];
        int jvm = Integer.parseInt(args[3]);
        int threads = Integer.parseInt(args[4]);
        long millis = Long.parseLong(args[5]);
        File waitsFile = new File(args[6]);
        Path markerFile = Path.of(args[7]);

        RedissonClient redisson = BenchRedis.newClient(redisUrl, Math.max(16, threads * 2 + 4));
        DistributedLocks locks = RedisLocks.builder(redisson).keyPrefix("bench-distlock")
                .localHandoff(new LocalHandoff(Integer.getInteger("bench.handoff.max", LocalHandoff.DEFAULT.maxHandoffs()),
                        Duration.ofMillis(Long.getLong("bench.handoff.millis", LocalHandoff.DEFAULT.maxTime().toMillis()))))
                .build();
        InsideMarker inside = InsideMarker.open(markerFile, jvm);
        // Warm up on a key the JVMs share, as in the measured run, so that the JIT has compiled the paths
        // the run takes (waits for another JVM, handoffs, returns to Redis at the bound) before GO.
        Contenders warmup = new Contenders(impl, redisson, locks, key + ":warm", inside, inside.privateSlot(), threads);
        warmup.run(WARMUP_MILLIS, false);
        long warmupHandoffs = ((EngineLocks) locks).executor().handoffCount();
        System.out.println("READY");
        System.out.flush();
        String go = new BufferedReader(new InputStreamReader(System.in)).readLine();
        if (!"GO".equals(go)) {
            throw new IllegalStateException("expected GO, got " + go);
        }
        Contenders measured = new Contenders(impl, redisson, locks, key, inside, inside.sharedSlot(), threads);
        measured.run(millis, true);
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(waitsFile)))) {
            measured.writeWaits(out);
        }
        redisson.getKeys().delete(key + ":warm:count");
        redisson.shutdown();
        System.out.println("RESULT " + measured.ops() + " " + measured.violations() + " " + measured.late()
                + " " + (((EngineLocks) locks).executor().handoffCount() - warmupHandoffs));
        System.out.flush();
        System.exit(0);
    }

    /** How long each child exercises its lock path before the measured run. */
    static final long WARMUP_MILLIS = Long.getLong("bench.hot.warmup.millis", 2000);

    /**
     * A 64-bit "inside" marker in a file every child maps: a holder compare-and-sets it from 0 to its
     * token on entry and back on exit, so an overlap of two holders, in any JVMs, is seen without a
     * Redis command (the critical section stays one INCR). Slot 0 is shared; slot 1 + jvm is private.
     */
    static final class InsideMarker {
        private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
        private final MappedByteBuffer buffer;
        private final int jvm;

        private InsideMarker(MappedByteBuffer buffer, int jvm) {
            this.buffer = buffer;
            this.jvm = jvm;
        }

        static InsideMarker open(Path file, int jvm) throws IOException {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                return new InsideMarker(channel.map(FileChannel.MapMode.READ_WRITE, 0, MARKER_BYTES), jvm);
            }
        }

        int sharedSlot() {
            return 0;
        }

        int privateSlot() {
            return 1 + jvm;
        }

        boolean enter(int slot, long token) {
            return LONGS.compareAndSet(buffer, slot * 8, 0L, token);
        }

        boolean exit(int slot, long token) {
            return LONGS.compareAndSet(buffer, slot * 8, token, 0L);
        }
    }

    static final int MARKER_BYTES = 4096;

    /** T threads of one child, all locking one key, each section one INCR inside the marker check. */
    private static final class Contenders {
        private final String impl;
        private final DistributedLocks locks;
        private final String key;
        private final RLock rawLock;
        private final RFencedLock rawFencedLock;
        private final RAtomicLong counter;
        private final InsideMarker inside;
        private final int slot;
        private final int threads;
        private final long[] opsPerThread;
        private final long[] latePerThread;
        private final long[] violationsPerThread;
        private final long[][] waitsPerThread;
        private final int[] waitCounts;

        Contenders(String impl, RedissonClient redisson, DistributedLocks locks, String key, InsideMarker inside,
                   int slot, int threads) {
            this.impl = impl;
            this.locks = locks;
            this.key = key;
            this.rawLock = redisson.getLock("bench-raw:" + key);
            this.rawFencedLock = redisson.getFencedLock("bench-raw-fenced:" + key);
            this.counter = redisson.getAtomicLong(key + ":count");
            this.inside = inside;
            this.slot = slot;
            this.threads = threads;
            this.opsPerThread = new long[threads];
            this.latePerThread = new long[threads];
            this.violationsPerThread = new long[threads];
            this.waitsPerThread = new long[threads][];
            this.waitCounts = new int[threads];
        }

        void run(long millis, boolean record) throws InterruptedException {
            CountDownLatch done = new CountDownLatch(threads);
            long endNanos = System.nanoTime() + millis * 1_000_000L;
            for (int t = 0; t < threads; t++) {
                int index = t;
                Thread thread = new Thread(() -> {
                    try {
                        contend(index, endNanos, record);
                    } finally {
                        done.countDown();
                    }
                }, "hot-" + t);
                thread.start();
            }
            done.await();
        }

        private void contend(int index, long endNanos, boolean record) {
            long token = ((long) (inside.jvm + 1) << 32) | (index + 1);
            long[] waits = new long[record ? 4096 : 1];
            int count = 0;
            long ops = 0;
            long late = 0;
            long[] violations = new long[1];
            Runnable critical = () -> {
                if (!inside.enter(slot, token)) {
                    violations[0]++;
                }
                counter.incrementAndGet();
                if (!inside.exit(slot, token)) {
                    violations[0]++;
                }
            };
            while (System.nanoTime() < endNanos) {
                long before = System.nanoTime();
                long[] acquiredAt = new long[1];
                switch (impl) {
                    case "raw" -> {
                        rawLock.lock();
                        try {
                            acquiredAt[0] = System.nanoTime();
                            critical.run();
                        } finally {
                            rawLock.unlock();
                        }
                    }
                    case "raw-fenced" -> {
                        if (rawFencedLock.lockAndGetToken() == null) {
                            throw new IllegalStateException("RFencedLock gave no token");
                        }
                        try {
                            acquiredAt[0] = System.nanoTime();
                            critical.run();
                        } finally {
                            rawFencedLock.unlock();
                        }
                    }
                    case "distlock" -> locks.exclusive(key).waitForever().run(() -> {
                        acquiredAt[0] = System.nanoTime();
                        critical.run();
                    });
                    case "distlock-fenced" -> locks.exclusive(key).fenced().waitForever().run(() -> {
                        acquiredAt[0] = System.nanoTime();
                        locks.context().fencingToken().orElseThrow();
                        critical.run();
                    });
                    default -> throw new IllegalArgumentException("impl must be raw, raw-fenced, distlock or distlock-fenced, was " + impl);
                }
                if (record) {
                    waits = record(waits, count++, acquiredAt[0] - before);
                }
                if (System.nanoTime() <= endNanos) {
                    ops++;
                } else {
                    late++; // finished after the deadline: in the counter, not in the throughput
                }
            }
            opsPerThread[index] = ops;
            latePerThread[index] = late;
            violationsPerThread[index] = violations[0];
            waitsPerThread[index] = waits;
            waitCounts[index] = count;
        }

        long ops() {
            return Arrays.stream(opsPerThread).sum();
        }

        long late() {
            return Arrays.stream(latePerThread).sum();
        }

        long violations() {
            return Arrays.stream(violationsPerThread).sum();
        }

        void writeWaits(DataOutputStream out) throws IOException {
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < waitCounts[t]; i++) {
                    out.writeLong(waitsPerThread[t][i]);
                }
            }
        }
    }

    private static long[] record(long[] waits, int at, long nanos) {
        if (at >= waits.length) {
            waits = Arrays.copyOf(waits, waits.length * 2);
        }
        waits[at] = nanos;
        return waits;
    }
}
