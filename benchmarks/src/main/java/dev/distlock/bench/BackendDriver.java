package dev.distlock.bench;

import dev.distlock.bench.BackendStore.Locker;
import dev.distlock.bench.BackendStore.Node;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * distlock on each backend next to what a user would pick instead on that store: raw Redisson's
 * {@code RLock}, Curator's own {@link InterProcessMutex}, a plain {@code SELECT … FOR UPDATE} in a
 * transaction. Two rows per store:
 * <ul>
 *   <li><b>uncontended</b>: one thread, lock + unlock with an empty section, baseline and distlock
 *       taking turns in slices, every slice timed; the ratio is the median of the slices' ratios;</li>
 *   <li><b>hot key</b>: two nodes (two connections: clients, sessions, data sources) × T threads on
 *       one key for a fixed time, each section an increment of a plain counter; sections/s, checked
 *       for overlap and lost updates.</li>
 * </ul>
 * The stores are {@link BackendStores}': ZooKeeper is Curator's test server in this JVM; the
 * database is an H2 TCP server in this JVM, or PostgreSQL when {@code DISTLOCK_BENCH_POSTGRES_URL}
 * names one; Redis is the benchmarks' Redis.
 */
final class BackendDriver {

    record Row(String store, String workload, String baseline, double baselinePerSecond, double distlockPerSecond,
               double ratio, String note) {
    }

    private BackendDriver() {
    }

    /** @param stores which of {@code redis}, {@code zookeeper}, {@code database} to run, in that order */
    static List<Row> run(String redisUrl, boolean quick, int threads, long hotMillis, int slices, int sliceCalls,
                         Set<String> stores) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String name : List.of("redis", "zookeeper", "database")) {
            if (!stores.contains(name)) {
                continue;
            }
            try (BackendStore store = switch (name) {
                case "redis" -> BackendStores.redis(redisUrl);
                case "zookeeper" -> BackendStores.zooKeeper();
                default -> BackendStores.database();
            }) {
                rows.add(uncontended(store, quick ? 2 : slices, quick ? 20 : sliceCalls));
                rows.add(hotKey(store, threads, quick ? 300 : hotMillis));
            }
        }
        return rows;
    }

    private static Row uncontended(BackendStore store, int slices, int calls) throws Exception {
        try (Node node = store.node()) {
            Locker baseline = node.baseline();
            Locker distlock = node.distlock();
            Runnable empty = () -> { };
            for (int i = 0; i < calls; i++) { // warm-up
                baseline.locked(empty);
                distlock.locked(empty);
            }
            double[] ratios = new double[slices];
            long baselineNanos = 0;
            long distlockNanos = 0;
            for (int s = 0; s < slices; s++) {
                boolean baselineFirst = s % 2 == 0;
                long a = time(baselineFirst ? baseline : distlock, calls);
                long b = time(baselineFirst ? distlock : baseline, calls);
                long base = baselineFirst ? a : b;
                long ours = baselineFirst ? b : a;
                baselineNanos += base;
                distlockNanos += ours;
                ratios[s] = (double) base / ours;
            }
            Arrays.sort(ratios);
            double total = (double) slices * calls;
            return new Row(store.name(), "uncontended, 1 thread", store.baselineName(), total / (baselineNanos / 1e9),
                    total / (distlockNanos / 1e9), ratios[slices / 2], slices + " slices of " + calls + " calls");
        }
    }

    private static long time(Locker locker, int calls) throws Exception {
        Runnable empty = () -> { };
        long started = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            locker.locked(empty);
        }
        return System.nanoTime() - started;
    }

    private static Row hotKey(BackendStore store, int threads, long millis) throws Exception {
        double base = storm(store, threads, millis, true);
        double ours = storm(store, threads, millis, false);
        return new Row(store.name(), "hot key, 2 nodes × " + threads + " threads", store.baselineName(), base, ours,
                ours / base, millis / 1000.0 + " s each");
    }

    /** @return sections per second; throws if two holders overlapped or an update was lost */
    private static double storm(BackendStore store, int threads, long millis, boolean baseline) throws Exception {
        try (Node first = store.node(); Node second = store.node()) {
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger violations = new AtomicInteger();
            long[] counter = {0};
            AtomicInteger sections = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(2 * threads);
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            Runnable section = () -> {
                if (inside.incrementAndGet() != 1) {
                    violations.incrementAndGet();
                }
                counter[0]++;
                inside.decrementAndGet();
            };
            List<Thread> workers = new ArrayList<>();
            for (Node node : List.of(first, second)) {
                for (int t = 0; t < threads; t++) {
                    Locker locker = baseline ? node.baseline() : node.distlock();
                    Thread worker = new Thread(() -> {
                        try {
                            while (!stop.get()) {
                                locker.locked(section);
                                sections.incrementAndGet();
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        } finally {
                            done.countDown();
                        }
                    });
                    workers.add(worker);
                }
            }
            long started = System.nanoTime();
            workers.forEach(Thread::start);
            Thread.sleep(millis);
            stop.set(true);
            if (!done.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(store.name() + ": hot-key workers did not stop");
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            if (!failures.isEmpty()) {
                throw new IllegalStateException(store.name() + (baseline ? " baseline" : " distlock") + " failed", failures.get(0));
            }
            if (violations.get() != 0 || counter[0] != sections.get()) {
                throw new IllegalStateException(store.name() + (baseline ? " baseline" : " distlock") + ": " + violations.get()
                        + " overlaps, counter " + counter[0] + " for " + sections.get() + " sections");
            }
            return sections.get() / seconds;
        }
    }

    /** The rows as a markdown table. */
    static String format(List<Row> rows) {
        StringBuilder md = new StringBuilder();
        md.append("| store | workload | baseline | baseline /s | distlock /s | distlock/baseline | |\n");
        md.append("|---|---|---|---:|---:|---:|---|\n");
        for (Row row : rows) {
            md.append("| ").append(row.store()).append(" | ").append(row.workload()).append(" | ").append(row.baseline())
                    .append(String.format(" | %,.0f | %,.0f | %.2f | ", row.baselinePerSecond(), row.distlockPerSecond(), row.ratio()))
                    .append(row.note()).append(" |\n");
        }
        return md.toString();
    }
}
