package dev.distlock.bench;

import java.util.List;
import java.util.Set;

/** The backends part of {@link BenchMain}: runs {@link BackendDriver} and appends its table. */
final class BackendsSection {

    private BackendsSection() {
    }

    /**
     * {@link BackendDriver}: distlock on Redis, ZooKeeper and the database next to each store's own
     * lock. Properties: {@code bench.backends.threads} (8 per node), {@code bench.backends.seconds}
     * (5 per hot-key run), {@code bench.backends.slices} (21), {@code bench.backends.calls} (200 per slice),
     * {@code bench.backends.stores} (which stores, comma-separated: redis, zookeeper, database; all by default).
     */
    static void append(StringBuilder md, String url, boolean quick) throws Exception {
        int threads = Integer.getInteger("bench.backends.threads", 8);
        long millis = Long.getLong("bench.backends.seconds", 5) * 1000;
        int slices = Integer.getInteger("bench.backends.slices", 21);
        int calls = Integer.getInteger("bench.backends.calls", 200);
        long started = System.nanoTime();
        Set<String> stores = Set.of(System.getProperty("bench.backends.stores", "redis,zookeeper,database").split(","));
        if (!Set.of("redis", "zookeeper", "database").containsAll(stores)) {
            throw new IllegalArgumentException("bench.backends.stores must name redis, zookeeper or database, was " + stores);
        }
        List<BackendDriver.Row> rows = BackendDriver.run(url, quick, threads, millis, slices, calls, stores);
        System.out.printf("backends took %.1f s%n", (System.nanoTime() - started) / 1e9);
        md.append("### Each backend next to its store's own lock\n\n");
        md.append("Uncontended: one thread, baseline and distlock taking turns in slices, ratio = median of the slices' "
                + "ratios. Hot key: two nodes (two clients, sessions or data sources) in this JVM, threads on one key, "
                + "each section an increment of a plain counter, checked for overlap and lost updates. ZooKeeper: "
                + "Curator's test server in this JVM; database: an H2 TCP server in this JVM, or DISTLOCK_BENCH_POSTGRES_URL.\n\n");
        md.append(BackendDriver.format(rows)).append('\n');
    }
}
