package dev.distlock.internal.id;

import dev.distlock.redis.RedisWorkerLeases;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.testing.IdRuns;
import dev.distlock.testing.MovableClock;

import dev.distlock.id.IdGenerationException;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Worker ids leased in a real Redis: never shared by live generators, given back on close, guarded by the last millisecond. */
@Timeout(120)
class RedisWorkerLeasesTest {

    private static final long TTL_MILLIS = 10_000;
    private static final int CLIENTS = 5;
    /** One worker id: whoever holds it keeps everyone else out. */
    private static final SnowflakeLayout ONE_WORKER = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 22);
    private static final SnowflakeLayout TWO_WORKERS = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 41, 1, 21);

    private static final List<RedissonClient> clients = new ArrayList<>();
    private final String prefix = TestRedis.uniquePrefix("worker-leases");

    @BeforeAll
    static void connect() {
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(TestRedis.newClient());
        }
    }

    @AfterAll
    static void disconnect() {
        clients.forEach(RedissonClient::shutdown);
    }

    @Test
    void fiftyGeneratorsStartedAtOnceNeverShareAWorkerId() throws Exception {
        int generators = 50;
        // 64 worker ids for 50 nodes: random starting points collide often, the script must still hand out each id once.
        SnowflakeLayout layout = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 41, 6, 16);
        ExecutorService pool = Executors.newFixedThreadPool(generators);
        ConcurrentLinkedQueue<SnowflakeGenerator> started = new ConcurrentLinkedQueue<>();
        try {
            CyclicBarrier together = new CyclicBarrier(generators);
            List<Future<long[]>> runs = new ArrayList<>();
            for (int i = 0; i < generators; i++) {
                RedissonClient client = clients.get(i % CLIENTS);
                runs.add(pool.submit(() -> {
                    together.await();
                    SnowflakeGenerator generator = leased("fifty", layout, Clock.systemUTC(), client);
                    started.add(generator);
                    long[] ids = new long[1_000];
                    for (int n = 0; n < ids.length; n++) {
                        ids[n] = generator.nextId();
                    }
                    return ids;
                }));
            }
            List<long[]> ids = new ArrayList<>();
            for (Future<long[]> run : runs) {
                ids.add(run.get());
            }

            Set<Long> workerIds = new HashSet<>();
            for (SnowflakeGenerator generator : started) {
                workerIds.add(generator.workerId());
            }
            assertEquals(generators, workerIds.size(), "distinct worker ids among " + generators + " live generators: " + workerIds);
            assertEquals(0, IdRuns.duplicates(IdRuns.concat(ids.toArray(long[][]::new))), "duplicate ids");
            assertEquals(generators, workerKeys("fifty").size(), "one lease key per generator in Redis");
        } finally {
            started.forEach(SnowflakeGenerator::close);
            pool.shutdownNow();
        }
        assertEquals(List.of(), workerKeys("fifty"), "closing gives every worker id back");
    }

    @Test
    void closingGivesTheWorkerIdBack() throws InterruptedException {
        long[] firstIds = new long[100];
        SnowflakeGenerator first = leased("give-back", ONE_WORKER, Clock.systemUTC(), clients.get(0));
        try (first) {
            for (int i = 0; i < firstIds.length; i++) {
                firstIds[i] = first.nextId();
            }
            try (SnowflakeGenerator refused = leased("give-back", ONE_WORKER, Clock.systemUTC(), clients.get(1))) {
                IdGenerationException allTaken = assertThrows(IdGenerationException.class, refused::nextId);
                assertTrue(allTaken.getMessage().contains("leased by live nodes"), allTaken::getMessage);
            }
        }
        // The next node must be past the last millisecond the first one issued in.
        Thread.sleep(5);

        try (SnowflakeGenerator next = leased("give-back", ONE_WORKER, Clock.systemUTC(), clients.get(1))) {
            long id = next.nextId();
            assertEquals(0, next.workerId());
            assertTrue(id > Arrays.stream(firstIds).max().orElseThrow(), "same worker id, later time: higher id");
        }
    }

    @Test
    void closingRightAfterStartLeavesNoWorkerIdBehind() throws InterruptedException {
        // The heartbeat starts at once; close() must not leave a renewal or acquisition of it holding a worker id.
        for (int i = 0; i < 30; i++) {
            try (SnowflakeGenerator generator = leased("restarts", ONE_WORKER, Clock.systemUTC(), clients.get(i % CLIENTS))) {
                generator.nextId();
            }
            Thread.sleep(20);
            assertEquals(List.of(), workerKeys("restarts"), "restart " + i + ": the only worker id is free again");
        }
    }

    @Test
    void aNodeWhoseClockIsBehindTheLastIssuedMillisecondDoesNotTakeThatWorkerId() throws InterruptedException {
        long aheadLastId;
        try (SnowflakeGenerator ahead = leased("behind", ONE_WORKER, new MovableClock(Duration.ofHours(1)), clients.get(0))) {
            aheadLastId = ahead.nextId();
        }

        try (SnowflakeGenerator behind = leased("behind", ONE_WORKER, Clock.systemUTC(), clients.get(1))) {
            IdGenerationException refused = assertThrows(IdGenerationException.class, behind::nextId);
            assertTrue(refused.getMessage().contains("clock is ahead"), refused::getMessage);
        }
        try (SnowflakeGenerator later = leased("behind", ONE_WORKER, new MovableClock(Duration.ofHours(2)), clients.get(2))) {
            assertTrue(later.nextId() > aheadLastId, "a node past the stored millisecond takes the worker id and issues above it");
        }
    }

    @Test
    void aNodeWhoseClockIsBehindTakesAnotherWorkerIdInstead() throws InterruptedException {
        long usedAhead;
        try (SnowflakeGenerator ahead = leased("other", TWO_WORKERS, new MovableClock(Duration.ofHours(1)), clients.get(0))) {
            ahead.nextId();
            usedAhead = ahead.workerId();
        }
        for (int i = 0; i < 10; i++) {
            try (SnowflakeGenerator behind = leased("other", TWO_WORKERS, Clock.systemUTC(), clients.get(1 + i % (CLIENTS - 1)))) {
                behind.nextId();
                assertEquals(1 - usedAhead, behind.workerId(), "attempt " + i + ": never the worker id last used an hour ahead");
            }
            Thread.sleep(3);
        }
    }

    private SnowflakeGenerator leased(String name, SnowflakeLayout layout, Clock clock, RedissonClient client) {
        return SnowflakeGenerator.leased(name, layout, clock, 10, RedisWorkerLeases.factory(() -> client, prefix, TTL_MILLIS));
    }

    private List<String> workerKeys(String name) {
        List<String> keys = new ArrayList<>();
        clients.get(0).getKeys().getKeysByPattern(prefix + ":id:{" + name + "}:worker:*").forEach(keys::add);
        return keys;
    }
}
