package dev.distlock.bench;

import dev.distlock.DistributedLocks;
import dev.distlock.spi.LockBackend;
import dev.distlock.redis.RedisBackend;
import dev.distlock.jdbc.JdbcBackend;
import dev.distlock.zookeeper.ZooKeeperBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.h2.jdbcx.JdbcConnectionPool;
import org.postgresql.ds.PGConnectionPoolDataSource;

import javax.sql.ConnectionPoolDataSource;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import javax.sql.DataSource;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
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
 * ZooKeeper is Curator's test server in this JVM; the database is an H2 TCP server in this JVM, or
 * PostgreSQL when {@code DISTLOCK_BENCH_POSTGRES_URL} names one; Redis is the benchmarks' Redis.
 */
final class BackendDriver {

    record Row(String store, String workload, String baseline, double baselinePerSecond, double distlockPerSecond,
               double ratio, String note) {
    }

    /** One way to run a section under a lock on one node. */
    interface Locker {
        void locked(Runnable section) throws Exception;
    }

    /** Makes a node: a connection of its own, and its two lockers. */
    interface Node extends AutoCloseable {
        Locker baseline() throws Exception;

        Locker distlock();

        @Override
        void close() throws Exception;
    }

    /** A step of a baseline lock that may throw. */
    interface Step {
        void run() throws Exception;
    }

    /** Makes one thread's baseline locker. */
    interface Baseline {
        Locker make() throws Exception;
    }

    /** A node: distlock's locks over its own connection, the baseline, and what to close after them. */
    record LockNode(Baseline baselines, DistributedLocks locks, AutoCloseable resources) implements Node {
        @Override
        public Locker baseline() throws Exception {
            return baselines.make();
        }

        @Override
        public Locker distlock() {
            return section -> locks.exclusive("key").waitForever().run(section);
        }

        @Override
        public void close() throws Exception {
            locks.close();
            resources.close();
        }
    }

    /** {@code lock}, the section, then {@code unlock} whatever the section did. */
    static Locker around(Step lock, Step unlock) {
        return section -> {
            lock.run();
            try {
                section.run();
            } finally {
                unlock.run();
            }
        };
    }

    interface Store extends AutoCloseable {
        String name();

        String baselineName();

        Node node() throws Exception;

        @Override
        void close() throws Exception;
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
            try (Store store = switch (name) {
                case "redis" -> redis(redisUrl);
                case "zookeeper" -> zooKeeper();
                default -> database();
            }) {
                rows.add(uncontended(store, quick ? 2 : slices, quick ? 20 : sliceCalls));
                rows.add(hotKey(store, threads, quick ? 300 : hotMillis));
            }
        }
        return rows;
    }

    private static Row uncontended(Store store, int slices, int calls) throws Exception {
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

    private static Row hotKey(Store store, int threads, long millis) throws Exception {
        double base = storm(store, threads, millis, true);
        double ours = storm(store, threads, millis, false);
        return new Row(store.name(), "hot key, 2 nodes × " + threads + " threads", store.baselineName(), base, ours,
                ours / base, millis / 1000.0 + " s each");
    }

    /** @return sections per second; throws if two holders overlapped or an update was lost */
    private static double storm(Store store, int threads, long millis, boolean baseline) throws Exception {
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

    // ------------------------------------------------------------------ stores

    private static Store redis(String url) {
        return new Store() {
            @Override
            public String name() {
                return "Redis";
            }

            @Override
            public String baselineName() {
                return "Redisson RLock";
            }

            @Override
            public Node node() {
                RedissonClient client = BenchRedis.newClient(url, 64);
                DistributedLocks locks = DistributedLocks.builder(new RedisBackend(() -> client, 5_000)).keyPrefix("bench-backends").build();
                RLock raw = client.getLock("bench-backends:raw:key");
                return new LockNode(() -> around(raw::lock, raw::unlock), locks, client::shutdown);
            }

            @Override
            public void close() {
            }
        };
    }

    private static Store zooKeeper() throws Exception {
        TestingServer server = new TestingServer(true);
        return new Store() {
            @Override
            public String name() {
                return "ZooKeeper";
            }

            @Override
            public String baselineName() {
                return "Curator InterProcessMutex";
            }

            @Override
            public Node node() {
                CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(), 15_000, 5_000,
                        new ExponentialBackoffRetry(100, 3));
                client.start();
                DistributedLocks locks = DistributedLocks.builder(new ZooKeeperBackend(client, "/bench-distlock", false, 15_000, 5_000))
                        .build();
                InterProcessMutex raw = new InterProcessMutex(client, "/bench-raw/key");
                return new LockNode(() -> around(raw::acquire, raw::release), locks, client::close);
            }

            @Override
            public void close() throws Exception {
                server.close();
            }
        };
    }

    private static Store database() throws Exception {
        String postgres = System.getenv("DISTLOCK_BENCH_POSTGRES_URL");
        Server h2 = null;
        String url;
        if (postgres != null && !postgres.isBlank()) {
            url = postgres.strip();
        } else {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            h2 = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
            url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:bench;DB_CLOSE_DELAY=-1";
        }
        DataSource setup = dataSource(url);
        try (Connection connection = setup.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS bench_row (id INT PRIMARY KEY, n BIGINT NOT NULL)");
            statement.execute("DELETE FROM bench_row");
            statement.execute("INSERT INTO bench_row (id, n) VALUES (1, 0)");
            statement.execute("DROP TABLE IF EXISTS bench_lock");
            statement.execute("DROP TABLE IF EXISTS bench_lock_name");
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        }
        Server server = h2;
        String kind = url.startsWith("jdbc:postgresql") ? "PostgreSQL" : "H2 (TCP)";
        return new Store() {
            @Override
            public String name() {
                return "database: " + kind;
            }

            @Override
            public String baselineName() {
                return "SELECT … FOR UPDATE";
            }

            @Override
            public Node node() {
                DataSource dataSource = dataSource(url);
                DistributedLocks locks = DistributedLocks.builder((LockBackend) new JdbcBackend(dataSource, "bench_lock", 30_000, 5_000))
                        .build();
                List<Connection> connections = new java.util.concurrent.CopyOnWriteArrayList<>();
                return new LockNode(() -> {
                    Connection connection = dataSource.getConnection(); // one per thread, kept, as a pool would
                    connections.add(connection);
                    connection.setAutoCommit(false);
                    PreparedStatement select = connection.prepareStatement("SELECT n FROM bench_row WHERE id = 1 FOR UPDATE");
                    return section -> {
                        try (ResultSet row = select.executeQuery()) {
                            row.next();
                            section.run();
                        }
                        connection.commit();
                    };
                }, locks, () -> {
                    for (Connection connection : connections) {
                        connection.close();
                    }
                });
            }

            @Override
            public void close() {
                if (server != null) {
                    server.stop();
                }
            }
        };
    }

    /** A pooled data source, as an application server gives one: both sides reuse their connections. */
    private static DataSource dataSource(String url) {
        ConnectionPoolDataSource physical;
        if (url.startsWith("jdbc:postgresql")) {
            PGConnectionPoolDataSource postgres = new PGConnectionPoolDataSource();
            postgres.setURL(url);
            physical = postgres;
        } else {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL(url);
            physical = h2;
        }
        JdbcConnectionPool pool = JdbcConnectionPool.create(physical);
        pool.setMaxConnections(64);
        return pool;
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
