package dev.distlock.redis;

import dev.distlock.DistributedLocks;
import dev.distlock.id.Ids;
import dev.distlock.internal.core.EngineBuilder;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What stays in Redis after many distinct names were each locked once: bounded by what is held now,
 * not by what was ever locked. A Redis of its own (so that its key count is this test's), the
 * names locked from 16 threads, every other one fenced; Snowflake generators with leased workers
 * made and closed meanwhile. Then, with a few locks held and two generators open, the keyspace must
 * shrink to those once the fencing counters' quiet time has passed. The twin keeps the counters for
 * ever, as Redisson's fenced lock does, and the keyspace grows with every fenced name.
 *
 * <p>{@value #KEYS_PROPERTY} sets how many names (default 20,000; the closing note of issue 26
 * gives a run with 1,000,000).
 */
@Timeout(1_800)
class RedisKeyspaceIT {

    static final String KEYS_PROPERTY = "distlock.keyspace.keys";
    private static final int KEYS = Integer.getInteger(KEYS_PROPERTY, 20_000);
    private static final long COUNTER_EXPIRY_MILLIS = 2_000;
    private static final int HELD = 5;
    private static final int THREADS = 16;
    /** The Snowflake generators' one name ("orders"). */
    private static final int ID_NAMES = 1;

    @Test
    void whatStaysIsBoundedByWhatIsHeldNow() throws Exception {
        try (RedisProcess redis = RedisProcess.startOnFreePort()) {
            RedissonClient client = client(redis);
            DistributedLocks locks = new EngineBuilder().keyPrefix("keyspace")
                    .build(new RedisBackend(() -> client, 5_000, COUNTER_EXPIRY_MILLIS));
            try {
                long before = dbSize(redis);
                long started = System.nanoTime();
                lockEachOnce(locks, "name", KEYS);
                List<Ids.Generator> alive = workersComeAndGo(client);
                long lockedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                long rightAfter = dbSize(redis);

                CountDownLatch holding = new CountDownLatch(HELD);
                CountDownLatch done = new CountDownLatch(1);
                ExecutorService holders = Executors.newFixedThreadPool(HELD);
                for (int i = 0; i < HELD; i++) {
                    String key = "held-" + i;
                    holders.execute(() -> locks.exclusive(key).fenced().run(() -> {
                        holding.countDown();
                        awaitQuietly(done);
                    }));
                }
                assertTrue(holding.await(30, TimeUnit.SECONDS), "the held locks were taken");
                // Held now: each held lock and its counter, and each open generator's worker key; one
                // hash per id name with the last time each worker id issued ids (at most 1,024 fields);
                // and the engine's node name (RedisNodeNames).
                long bound = 2L * HELD + alive.size() + ID_NAMES + 1;
                boolean shrank = Waits.until(30_000 + KEYS / 10, () -> dbSize(redis) <= bound);
                long after = dbSize(redis);
                Object left = redis.call("KEYS", "*");
                System.out.printf("[keyspace] Redis: %,d names locked once (half fenced) and 50 leased Snowflake workers "
                                + "come and gone, in %,d ms: keys before %d, right after %,d, %d s later %d "
                                + "(held now: %d locks with their counters, %d generators' workers): %s%n",
                        KEYS, lockedMillis, before, rightAfter, (COUNTER_EXPIRY_MILLIS + 1_999) / 1_000, after, HELD, alive.size(), left);
                done.countDown();
                holders.shutdown();
                alive.forEach(Ids.Generator::close);
                assertAll(
                        () -> assertTrue(shrank, "keys left " + after + ", held " + bound + ": " + redis.call("KEYS", "*")),
                        () -> assertTrue(Waits.until(30_000, () -> dbSize(redis) <= ID_NAMES + 1), "released and closed: "
                                + redis.call("KEYS", "*") + " left; only the id name's last-issued times and the open engine's "
                                + "node name stay"));
                locks.close();
                assertTrue(Waits.until(10_000, () -> dbSize(redis) <= ID_NAMES), "the engine closed: "
                        + redis.call("KEYS", "*") + " left; only the id name's last-issued times stay");
            } finally {
                locks.close();
                client.shutdown();
            }
        }
    }

    /** The twin: counters kept for ever; every fenced name stays. */
    @Test
    void countersKeptForEverGrowWithEveryFencedName() throws Exception {
        int names = 2_000;
        try (RedisProcess redis = RedisProcess.startOnFreePort()) {
            RedissonClient client = client(redis);
            DistributedLocks locks = new EngineBuilder().keyPrefix("keyspace").build(new RedisBackend(() -> client, 5_000, 0));
            try {
                lockEachOnce(locks, "kept", names);
                Thread.sleep(COUNTER_EXPIRY_MILLIS + 1_000);
                assertEquals(names / 2 + 1, dbSize(redis), "one counter per fenced name, kept (and the engine's node name)");
            } finally {
                locks.close();
                client.shutdown();
            }
        }
    }

    private static RedissonClient client(RedisProcess redis) {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.url()).setConnectionPoolSize(THREADS * 2).setConnectionMinimumIdleSize(THREADS);
        return Redisson.create(config);
    }

    /** Locks {@code count} names once each, from {@value #THREADS} threads; every other name fenced. */
    private static void lockEachOnce(DistributedLocks locks, String prefix, int count) throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<CompletableFuture<Void>> runs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                runs.add(CompletableFuture.runAsync(() -> {
                    for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        DistributedLocks.LockCall call = locks.exclusive(prefix + ":" + i);
                        (i % 2 == 0 ? call.fenced() : call).run(() -> { });
                    }
                }, threads));
            }
            CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get();
        } finally {
            threads.shutdown();
        }
    }

    /** Fifty generators with leased workers made and closed; two left open. */
    private static List<Ids.Generator> workersComeAndGo(RedissonClient client) {
        for (int i = 0; i < 50; i++) {
            try (Ids.Generator ids = Ids.snowflake("orders").leasedWorker(RedisIds.store(client)).keyPrefix("keyspace").build()) {
                ids.nextId();
            }
        }
        List<Ids.Generator> alive = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Ids.Generator ids = Ids.snowflake("orders").leasedWorker(RedisIds.store(client)).keyPrefix("keyspace").build();
            ids.nextId();
            alive.add(ids);
        }
        return alive;
    }

    private static long dbSize(RedisProcess redis) {
        return ((Number) redis.call("DBSIZE")).longValue();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
