package dev.distlock.topologies;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.DistributedLocks;
import dev.distlock.LocalHandoff;
import dev.distlock.Locked;
import dev.distlock.redis.RedisWorkerLeases;
import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.OverlapDetector;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.RedisProcesses;
import dev.distlock.testkit.Waits;
import jakarta.enterprise.context.ApplicationScoped;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Redis Cluster of three masters (no replicas), slots 0-5460, 5461-10922 and 10923-16383, built
 * by hand with CLUSTER ADDSLOTS and CLUSTER MEET; Redisson in cluster mode. Every kind of lock and
 * the leased Snowflake ids work there, lock keys land on different nodes, and a lock on several
 * keys spans nodes (Redisson takes the keys one by one, so no CROSSSLOT).
 */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTopologyIT {

    private static final int[][] SLOT_RANGES = {{0, 5460}, {5461, 10922}, {10923, 16383}};
    private static final Duration WAIT = Duration.ofSeconds(5);

    private RedisProcesses redis;
    private final List<RedisProcess> nodes = new ArrayList<>();
    private RedissonClient first;
    private RedissonClient second;
    private DistributedLocks locksA;
    private DistributedLocks locksB;
    private long setupMillis;
    /** One entry per test, for the figures line. */
    private final Map<String, String> figures = new LinkedHashMap<>();

    @BeforeAll
    void startCluster() {
        long start = System.nanoTime();
        redis = new RedisProcesses("cluster");
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(redis.server("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", "2000"));
            }
            // Redis 6.2 has no CLUSTER ADDSLOTSRANGE (7.0 does): one ADDSLOTS with every slot number of the range.
            for (int i = 0; i < 3; i++) {
                List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = SLOT_RANGES[i][0]; slot <= SLOT_RANGES[i][1]; slot++) {
                    command.add(Integer.toString(slot));
                }
                assertEquals("OK", nodes.get(i).call(command.toArray(String[]::new)));
            }
            for (int i = 1; i < 3; i++) {
                assertEquals("OK", nodes.get(0).call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(nodes.get(i).port())));
            }
            for (RedisProcess node : nodes) {
                assertTrue(RedisProcesses.await(20_000, () -> {
                    String info = node.call("CLUSTER", "INFO").toString();
                    return "ok".equals(RedisProcess.infoField(info, "cluster_state"))
                            && "3".equals(RedisProcess.infoField(info, "cluster_known_nodes"))
                            && "16384".equals(RedisProcess.infoField(info, "cluster_slots_ok"));
                }), () -> "cluster_state:ok on " + node + ": " + node.call("CLUSTER", "INFO") + "\n" + node.log());
            }
            first = client();
            second = client();
            locksA = RedisLocks.builder(first).keyPrefix("cluster").build();
            // The second client never passes locks on locally, so every one of its grants comes from the cluster.
            locksB = RedisLocks.builder(second).keyPrefix("cluster").localHandoff(LocalHandoff.OFF).build();
        } catch (RuntimeException | Error e) {
            stopCluster();
            throw e;
        }
        setupMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @AfterAll
    void stopCluster() {
        try {
            for (RedissonClient client : new RedissonClient[] {second, first}) {
                if (client != null) {
                    client.shutdown(0, 2, TimeUnit.SECONDS);
                }
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
        if (!figures.isEmpty()) {
            System.out.println("FIGURES cluster: setup " + setupMillis + " ms (3 nodes, slots assigned, cluster_state:ok, 2 clients); "
                    + figures.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining("; ")));
        }
    }

    private RedissonClient client() {
        Config config = new Config();
        var cluster = config.useClusterServers()
                .setScanInterval(1_000)
                .setConnectTimeout(1_000)
                .setTimeout(2_000)
                .setRetryAttempts(1)
                .setRetryDelay(new ConstantDelay(Duration.ofMillis(200)))
                .setMasterConnectionMinimumIdleSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1);
        nodes.forEach(node -> cluster.addNodeAddress(node.url()));
        config.setLockWatchdogTimeout(5_000);
        return Redisson.create(config);
    }

    // ------------------------------------------------------------------ tests

    @Test
    @Order(1)
    void lockKeysSpreadOverTheNodes() {
        Map<Integer, List<String>> byNode = new java.util.TreeMap<>();
        for (int k = 0; k < 12; k++) {
            String redisKey = EngineAccess.lockName(locksA, "spread-" + k, false);
            byNode.computeIfAbsent(nodeOf(redisKey), ignored -> new ArrayList<>()).add(redisKey);
        }
        assertTrue(byNode.size() >= 2, "lock keys on at least two nodes: " + byNode);
        // Held at once, each key is where CLUSTER KEYSLOT says: the node owning its slot has it.
        String[] keys = new String[12];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = "spread-" + k;
        }
        Map<Integer, Integer> found = new java.util.TreeMap<>();
        locksB.exclusive(keys).waitTime(WAIT).run(() -> byNode.forEach((node, redisKeys) -> {
            for (String redisKey : redisKeys) {
                assertEquals(1L, nodes.get(node).call("EXISTS", redisKey), redisKey + " held on node " + node);
                found.merge(node, 1, Integer::sum);
            }
        }));
        for (String key : keys) {
            String redisKey = EngineAccess.lockName(locksA, key, false);
            assertEquals(0L, nodes.get(nodeOf(redisKey)).call("EXISTS", redisKey), "released: " + redisKey);
        }
        figures.put("12 lock keys per node", found.toString());
    }

    @Test
    @Order(2)
    void exclusiveLocksExcludeAcrossTwoClients() throws Exception {
        int keys = 3;
        // One per key; each section holds 1 ms between reading and writing the key's unguarded counter.
        OverlapDetector[] perKey = new OverlapDetector[keys];
        Arrays.setAll(perKey, k -> new OverlapDetector(TimeUnit.MILLISECONDS.toNanos(1)));
        long start = System.nanoTime();
        runThreads(8, 60, (thread, n) -> {
            int key = (thread + n) % keys;
            DistributedLocks locks = thread % 2 == 0 ? locksA : locksB;
            locks.exclusive("ex-" + key).waitTime(WAIT).run(perKey[key]::section);
        });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(0, Arrays.stream(perKey).mapToLong(OverlapDetector::violations).sum(), "one holder per key at a time");
        assertEquals(480, Arrays.stream(perKey).mapToLong(OverlapDetector::sections).sum());
        assertEquals(480, Arrays.stream(perKey).mapToLong(OverlapDetector::count).sum(),
                "the counters incremented without synchronisation saw every holder alone");
        Set<Integer> keyNodes = new TreeSet<>();
        for (int k = 0; k < keys; k++) {
            keyNodes.add(nodeOf(EngineAccess.lockName(locksA, "ex-" + k, false)));
        }
        figures.put("exclusive", "480 locks by 8 threads on 3 keys (nodes " + keyNodes + ") in " + millis + " ms, 0 violations");
    }

    @Test
    @Order(3)
    void readersShareAndAWriterExcludes() throws Exception {
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger maxReaders = new AtomicInteger();
        AtomicLong violations = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        runThreads(8, 15, (thread, n) -> {
            DistributedLocks locks = thread % 2 == 0 ? locksA : locksB;
            if (thread < 2) {
                locks.write("catalog").waitTime(Duration.ofSeconds(10)).run(() -> {
                    if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                        violations.incrementAndGet();
                    }
                    Waits.sleep(5);
                    if (readers.get() != 0) {
                        violations.incrementAndGet();
                    }
                    writers.decrementAndGet();
                    writes.incrementAndGet();
                });
            } else {
                locks.read("catalog").waitTime(Duration.ofSeconds(10)).run(() -> {
                    maxReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
                    if (writers.get() != 0) {
                        violations.incrementAndGet();
                    }
                    Waits.sleep(20);
                    readers.decrementAndGet();
                    reads.incrementAndGet();
                });
            }
        });
        assertEquals(0, violations.get(), "no reader while a writer holds the lock, one writer at a time");
        assertTrue(maxReaders.get() >= 2, "readers share: at most " + maxReaders.get() + " at once");
        assertEquals(90, reads.get());
        assertEquals(30, writes.get());
        figures.put("read/write", reads + " reads + " + writes + " writes on node " + nodeOf(EngineAccess.lockName(locksA, "catalog", true))
                + ", up to " + maxReaders + " readers at once, 0 violations");
    }

    @Test
    @Order(4)
    void fencingTokensRise() throws Exception {
        List<Long> tokens = new ArrayList<>();
        AtomicLong outOfOrder = new AtomicLong();
        long handoffsBefore = EngineAccess.executor(locksA).handoffCount() + EngineAccess.executor(locksB).handoffCount();
        runThreads(4, 20, (thread, n) -> {
            DistributedLocks locks = thread % 2 == 0 ? locksA : locksB;
            locks.exclusive("fenced").fenced().waitTime(WAIT).run(() -> {
                long token = locks.context().fencingToken().orElseThrow();
                synchronized (tokens) {
                    // a tenure handed on inside one JVM keeps its token; a new tenure has a larger one
                    if (!tokens.isEmpty() && token < tokens.get(tokens.size() - 1)) {
                        outOfOrder.incrementAndGet();
                    }
                    tokens.add(token);
                }
            });
        });
        long handoffs = EngineAccess.executor(locksA).handoffCount() + EngineAccess.executor(locksB).handoffCount() - handoffsBefore;
        assertEquals(80, tokens.size());
        assertEquals(0, outOfOrder.get(), "each holder's token at least the one before: " + tokens);
        assertEquals(80 - handoffs, tokens.stream().distinct().count(), "one token per tenure in Redis: " + tokens);
        assertTrue(tokens.get(0) >= dev.distlock.redis.FencingTokens.SEEDED, "seeded from Redis's clock: " + tokens.get(0));
        figures.put("fenced", "80 holders, " + (80 - handoffs) + " tenures, tokens rising by tenure, " + tokens.get(0) + " .. "
                + tokens.get(tokens.size() - 1)
                + " (lock on node " + nodeOf(EngineAccess.lockName(locksA, "fenced", false)) + ")");
    }

    @Test
    @Order(5)
    void oneLockOnKeysOfDifferentNodes() throws Exception {
        String[] keys = {"a", "b", "c"};
        Map<String, Integer> where = new LinkedHashMap<>();
        for (String key : keys) {
            String redisKey = EngineAccess.lockName(locksA, key, false);
            where.put(redisKey, nodeOf(redisKey));
        }
        assertTrue(new HashSet<>(where.values()).size() >= 2, "a, b and c live on at least two nodes: " + where);

        AtomicInteger multiInside = new AtomicInteger();
        AtomicInteger singleInside = new AtomicInteger();
        AtomicLong violations = new AtomicLong();
        AtomicLong multis = new AtomicLong();
        runThreads(6, 20, (thread, n) -> {
            DistributedLocks locks = thread % 2 == 0 ? locksA : locksB;
            if (thread < 3) {
                locks.exclusive("a", "b", "c").waitTime(Duration.ofSeconds(10)).run(() -> {
                    if (multiInside.incrementAndGet() != 1 || singleInside.get() != 0) {
                        violations.incrementAndGet();
                    }
                    if (n == 0) {
                        where.forEach((redisKey, node) -> assertEquals(1L, nodes.get(node).call("EXISTS", redisKey),
                                redisKey + " held on node " + node));
                    }
                    Waits.sleep(2);
                    multiInside.decrementAndGet();
                    multis.incrementAndGet();
                });
            } else {
                locks.exclusive("b").waitTime(Duration.ofSeconds(10)).run(() -> {
                    if (singleInside.incrementAndGet() != 1 || multiInside.get() != 0) {
                        violations.incrementAndGet();
                    }
                    Waits.sleep(2);
                    singleInside.decrementAndGet();
                });
            }
        });
        assertEquals(0, violations.get(), "the lock on a, b, c excludes the lock on b, and itself");
        assertEquals(60, multis.get());
        figures.put("multi-key", "60 locks on a, b, c (" + where.values() + " = nodes of a, b, c) against 60 on b alone, 0 violations");
    }

    @Test
    @Order(6)
    void snowflakeIdsWithLeasedWorkerIds() throws Exception {
        String prefix = "cluster-ids";
        try (SnowflakeGenerator one = SnowflakeGenerator.leased("orders", SnowflakeLayout.DEFAULT, Clock.systemUTC(), 10,
                RedisWorkerLeases.factory(() -> first, prefix, 10_000));
             SnowflakeGenerator two = SnowflakeGenerator.leased("orders", SnowflakeLayout.DEFAULT, Clock.systemUTC(), 10,
                     RedisWorkerLeases.factory(() -> second, prefix, 10_000))) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<long[]> a = pool.submit(ids(one, 20_000));
                Future<long[]> b = pool.submit(ids(two, 20_000));
                Set<Long> all = new HashSet<>();
                for (long id : a.get()) {
                    all.add(id);
                }
                for (long id : b.get()) {
                    all.add(id);
                }
                assertEquals(40_000, all.size(), "no id twice");
            } finally {
                pool.shutdownNow();
            }
            assertNotEquals(one.workerId(), two.workerId(), "two live generators, two worker ids");
            String workerKey = prefix + ":id:{orders}:worker:" + one.workerId();
            int node = nodeOf(workerKey);
            assertEquals(1L, nodes.get(node).call("EXISTS", workerKey), "the lease of worker " + one.workerId() + " lives on node " + node);
            figures.put("snowflake", "2 generators on 2 clients, worker ids " + one.workerId() + " and " + two.workerId()
                    + ", 40000 distinct ids, leases on node " + node);
        }
    }

    @ApplicationScoped
    public static class Counter {
        private final OverlapDetector overlap = new OverlapDetector(TimeUnit.MILLISECONDS.toNanos(1));

        // Through methods: the test holds a client proxy, whose own fields are never set.
        public long calls() {
            return overlap.sections();
        }

        public long violations() {
            return overlap.violations();
        }

        @Locked(value = "counter:{0}", waitTime = 10_000)
        public void increment(String id) {
            overlap.section();
        }
    }

    @Test
    @Order(7)
    void lockedBeanThroughCdiInClusterMode() throws Exception {
        String addresses = nodes.stream().map(RedisProcess::url).collect(Collectors.joining(","));
        long start = System.nanoTime();
        try (DistlockWeld weld = DistlockWeld.start(Map.of(
                "distlock.key-prefix", "cluster-cdi",
                "distlock.redis.mode", "cluster",
                "distlock.redis.addresses", addresses), Counter.class)) {
            Counter counter = weld.bean(Counter.class);
            runThreads(4, 25, (thread, n) -> counter.increment("x"));
            assertEquals(100, counter.calls());
            assertEquals(0, counter.violations(), "@Locked excludes in cluster mode");
            figures.put("CDI", "distlock.redis.mode=cluster, 100 @Locked calls by 4 threads in "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms (with deployment), 0 violations, key on node "
                    + nodeOf("cluster-cdi:lock:counter:x"));
        }
    }

    // ------------------------------------------------------------------ helpers

    /** The index in {@link #nodes} of the node that owns {@code redisKey}'s slot. */
    private int nodeOf(String redisKey) {
        long slot = (Long) nodes.get(0).call("CLUSTER", "KEYSLOT", redisKey);
        for (int i = 0; i < SLOT_RANGES.length; i++) {
            if (slot >= SLOT_RANGES[i][0] && slot <= SLOT_RANGES[i][1]) {
                return i;
            }
        }
        throw new IllegalStateException("slot " + slot);
    }

    private static Callable<long[]> ids(SnowflakeGenerator generator, int count) {
        return () -> {
            long[] ids = new long[count];
            for (int i = 0; i < count; i++) {
                ids[i] = generator.nextId();
            }
            return ids;
        };
    }

    @FunctionalInterface
    private interface Step {
        void run(int thread, int n) throws Exception;
    }

    /** {@code threads} threads, each running {@code step} {@code times} times; rethrows the first failure. */
    private static void runThreads(int threads, int times, Step step) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                runs.add(pool.submit(() -> {
                    for (int n = 0; n < times; n++) {
                        step.run(thread, n);
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(45, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
