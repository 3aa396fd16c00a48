package dev.distlock.redis;

import dev.distlock.id.DailySerial;
import dev.distlock.id.IdGenerationException;
import dev.distlock.internal.id.DailySerialGenerator;
import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.internal.id.SerialFormat;
import dev.distlock.internal.id.Tables;
import dev.distlock.spi.id.SegmentStore;
import dev.distlock.testing.TestDatabases.Database;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import javax.sql.DataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Daily serial numbers counted in real Redis servers of the test's own (flushed, restarted from an
 * older snapshot, failed over to a replica that missed the last numbers), with ranges from a real
 * H2 database. Each loss of Redis state is run twice: with the protection, no number repeats;
 * without it (the high-water mark kept in Redis, or the server check off), numbers repeat. The
 * engine's own rules, without Redis, are in {@code internal/id/DailySerialGeneratorTest}.
 */
@Timeout(120)
class RedisDayCounterTest {

    private final Tables tables = new Tables();
    private final List<AutoCloseable> closing = new ArrayList<>();
    @TempDir
    Path serverFiles;

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        tables.dropAll();
    }

    @Test
    void oneDaysNumbersStartAtOneAndFollowTheOrderTheyAreTakenWithoutGaps() throws Exception {
        OwnRedis redis = ownRedis();
        SegmentStore store = store();
        // Four nodes (each its own client and generator) taking 5,000 numbers each from 2 threads.
        List<DailySerialGenerator> nodes = new ArrayList<>();
        for (int node = 0; node < 4; node++) {
            RedissonClient client = redis.newClient();
            nodes.add(generator("orders", () -> client, store, settings(ZoneOffset.UTC, 50), true));
        }
        List<List<DailySerial>> perThread = takeConcurrently(nodes, 2, 2_500);

        Map<LocalDate, List<Long>> byDay = new HashMap<>();
        for (List<DailySerial> thread : perThread) {
            for (int i = 1; i < thread.size(); i++) {
                DailySerial previous = thread.get(i - 1);
                DailySerial current = thread.get(i);
                assertTrue(current.day().isAfter(previous.day()) || current.serial() > previous.serial(),
                        "a thread's numbers increase: " + previous + " then " + current);
            }
            thread.forEach(serial -> byDay.computeIfAbsent(serial.day(), d -> new ArrayList<>()).add(serial.serial()));
        }
        // Redis's day: the run may cross midnight UTC, so one or two days; each day's numbers are 1..n without a gap.
        assertTrue(byDay.size() <= 2, "days: " + byDay.keySet());
        int total = 0;
        for (Map.Entry<LocalDate, List<Long>> day : byDay.entrySet()) {
            List<Long> serials = day.getValue().stream().sorted().toList();
            for (int i = 0; i < serials.size(); i++) {
                assertEquals(i + 1, serials.get(i), day.getKey() + ": the numbers are 1.." + serials.size() + ", one each");
            }
            total += serials.size();
        }
        assertEquals(20_000, total);
        DailySerial any = perThread.get(0).get(0);
        assertEquals(any.day().toString().replace("-", "") + "-" + String.format("%06d", any.serial()), any.text());
        assertTrue(LocalDate.now(ZoneOffset.UTC).minusDays(1).isBefore(any.day()), "today (Redis's clock) was " + any.day());
    }

    @Test
    void numbersNeverRepeatWhenRedisIsFlushedMidDay() throws Exception {
        Run protectedRun = flushMidDay(store());
        assertEquals(0, protectedRun.duplicates, protectedRun.toString());
        assertTrue(protectedRun.after > 0 && protectedRun.before > 0, protectedRun.toString());
    }

    /** The twin: the high-water mark kept in Redis (a plain counter) is flushed with it, and numbers repeat. */
    @Test
    void aHighWaterMarkKeptInRedisRepeatsNumbersWhenRedisIsFlushed() throws Exception {
        AtomicReference<OwnRedis> redis = new AtomicReference<>();
        SegmentStore inRedis = (name, step) -> {
            long last = redis.get().client.getAtomicLong("hw:" + name).addAndGet(step);
            return new SegmentStore.Range(last - step + 1, last);
        };
        Run unprotected = flushMidDay(inRedis, redis);
        assertTrue(unprotected.duplicates > 0, "a Redis-only counter must repeat after a flush: " + unprotected);
    }

    private Run flushMidDay(SegmentStore store) throws Exception {
        return flushMidDay(store, new AtomicReference<>());
    }

    private Run flushMidDay(SegmentStore store, AtomicReference<OwnRedis> holder) throws Exception {
        OwnRedis redis = ownRedis();
        holder.set(redis);
        DailySerialGenerator generator = generator("flushed", () -> redis.client, store, settings(ZoneOffset.UTC, 100), true);
        List<DailySerial> before = take(generator, 1_050);
        redis.client.getKeys().flushall();
        List<DailySerial> after = take(generator, 1_050);
        return Run.of(before, after);
    }

    @Test
    void numbersNeverRepeatWhenRedisRestartsFromAnOlderSnapshot() throws Exception {
        Run run = restartFromOlderSnapshot(true);
        assertEquals(0, run.duplicates, run.toString());
    }

    /** The twin: without the server check, the restored hash hands out its numbers a second time. */
    @Test
    void withoutTheServerCheckAnOlderSnapshotRepeatsNumbers() throws Exception {
        Run run = restartFromOlderSnapshot(false);
        assertTrue(run.duplicates > 0, "the restored hash must repeat numbers without the check: " + run);
    }

    /**
     * The state is saved (as an RDB snapshot would), more numbers are taken, then the server
     * restarts and the saved state comes back: it has not seen the last numbers.
     */
    private Run restartFromOlderSnapshot(boolean checkServer) throws Exception {
        OwnRedis redis = ownRedis();
        DailySerialGenerator generator = generator("restored", () -> redis.client, store(), settings(ZoneOffset.UTC, 1_000), checkServer);
        List<DailySerial> before = take(generator, 100);
        String key = "t:serial:restored";
        byte[] snapshot = redis.client.getMap(key, StringCodec.INSTANCE).dump();
        before.addAll(take(generator, 300));
        redis.server.kill();
        redis.server.start();
        redis.client.getMap(key, StringCodec.INSTANCE).restore(snapshot);
        List<DailySerial> after = take(generator, 300);
        return Run.of(before, after);
    }

    @Test
    void numbersNeverRepeatWhenRedisFailsOverToAReplicaThatMissedTheLastNumbers() throws Exception {
        Run run = failOver(true);
        assertEquals(0, run.duplicates, run.toString());
    }

    /** The twin: without the server check, the promoted replica's older hash repeats numbers. */
    @Test
    void withoutTheServerCheckAFailoverRepeatsNumbers() throws Exception {
        Run run = failOver(false);
        assertTrue(run.duplicates > 0, "the promoted replica must repeat numbers without the check: " + run);
    }

    /**
     * A master and its replica; the replica is promoted (as Sentinel would) while the old master
     * still serves, so the numbers taken after that are missed by it; then the clients move over.
     */
    private Run failOver(boolean checkServer) throws Exception {
        OwnRedis master = ownRedis();
        RedisProcess replicaServer = RedisProcess.startOnFreePort("--replicaof", "127.0.0.1", Integer.toString(master.server.port()),
                "--dir", directory("replica"));
        closing.add(replicaServer);
        assertTrue(Waits.until(20_000, () -> "up".equals(replicaServer.info("replication", "master_link_status"))),
                "the replica synchronised");
        RedissonClient replicaClient = client(replicaServer.url());
        AtomicReference<RedissonClient> current = new AtomicReference<>(master.client);
        DailySerialGenerator generator = generator("failover", current::get, store(), settings(ZoneOffset.UTC, 1_000), checkServer);

        List<DailySerial> before = take(generator, 100);
        assertTrue(Waits.until(20_000, () -> master.server.info("replication", "master_repl_offset")
                .equals(replicaServer.info("replication", "slave_repl_offset"))), "the replica has seen the first numbers");
        replicaServer.call("REPLICAOF", "NO", "ONE");
        before.addAll(take(generator, 300));
        current.set(replicaClient);
        List<DailySerial> after = take(generator, 300);
        return Run.of(before, after);
    }

    @Test
    void aNewDayStartsAtRedissMidnightInTheConfiguredZone() throws Exception {
        OwnRedis redis = ownRedis();
        // A zone whose midnight is three seconds after Redis's now: a real midnight, on Redis's clock.
        ZoneId zone = zoneWithMidnightIn(redis.client, Duration.ofSeconds(3));
        List<DailySerialGenerator> nodes = List.of(
                generator("midnight", () -> redis.client, store(), settings(zone, 20), true),
                generator("midnight", () -> redis.client, store(), settings(zone, 20), true));
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<List<DailySerial>> threads = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            DailySerialGenerator node = nodes.get(t % 2);
            running.add(pool.submit(() -> {
                List<DailySerial> mine = new ArrayList<>();
                while (!stop.get()) {
                    mine.add(node.next());
                    Thread.sleep(1);
                }
                threads.add(mine);
                return null;
            }));
        }
        Thread.sleep(6_000);
        stop.set(true);
        for (Future<?> future : running) {
            future.get();
        }
        pool.shutdown();

        Set<String> texts = new HashSet<>();
        Map<LocalDate, List<Long>> byDay = new HashMap<>();
        for (List<DailySerial> mine : threads) {
            for (int i = 1; i < mine.size(); i++) {
                assertFalse(mine.get(i).day().isBefore(mine.get(i - 1).day()), "once a thread saw the new day it never sees the old one");
            }
            for (DailySerial serial : mine) {
                assertTrue(texts.add(serial.text()), "repeated: " + serial);
                byDay.computeIfAbsent(serial.day(), d -> new ArrayList<>()).add(serial.serial());
            }
        }
        assertEquals(2, byDay.size(), "numbers of two days: " + byDay.keySet());
        List<LocalDate> days = byDay.keySet().stream().sorted().toList();
        assertEquals(days.get(0).plusDays(1), days.get(1));
        List<Long> newDay = byDay.get(days.get(1)).stream().sorted().toList();
        assertEquals(1L, newDay.get(0), "the new day starts at 1");
        assertEquals(newDay.size(), newDay.get(newDay.size() - 1), "the new day's numbers have no gap");
    }

    @Test
    void aDatabaseThatIsDownStopsNumbersOnlyWhenANewRangeIsNeeded() throws Exception {
        OwnRedis redis = ownRedis();
        AtomicBoolean down = new AtomicBoolean();
        SegmentStore real = store();
        SegmentStore switchable = (name, step) -> {
            if (down.get()) {
                throw new SQLException("Connection refused (the test took the database down)");
            }
            return real.lease(name, step);
        };
        DailySerialGenerator generator = generator("dbdown", () -> redis.client, switchable, settings(ZoneOffset.UTC, 100), true);
        List<DailySerial> taken = take(generator, 10);
        down.set(true);
        taken.addAll(take(generator, 70)); // still in the range Redis holds
        IdGenerationException refused = assertThrows(IdGenerationException.class, () -> take(generator, 100));
        assertTrue(refused.getMessage().contains("Connection refused") && refused.getMessage().contains("No number was issued"),
                refused.getMessage());
        down.set(false);
        List<DailySerial> later = take(generator, 50);
        assertEquals(0, Run.of(taken, later).duplicates);
    }

    // ---------------------------------------------------------------------------------------------

    private record Run(int before, int after, long duplicates) {
        static Run of(List<DailySerial> before, List<DailySerial> after) {
            Set<String> seen = new HashSet<>();
            long duplicates = 0;
            for (List<DailySerial> part : List.of(before, after)) {
                for (DailySerial serial : part) {
                    if (!seen.add(serial.day() + "/" + serial.serial())) {
                        duplicates++;
                    }
                }
            }
            return new Run(before.size(), after.size(), duplicates);
        }
    }

    private static List<DailySerial> take(DailySerialGenerator generator, int count) {
        List<DailySerial> taken = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            taken.add(generator.next());
        }
        return taken;
    }

    private static List<List<DailySerial>> takeConcurrently(List<DailySerialGenerator> nodes, int threadsPerNode, int each)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(nodes.size() * threadsPerNode);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<DailySerial>>> futures = new ArrayList<>();
            for (DailySerialGenerator node : nodes) {
                for (int t = 0; t < threadsPerNode; t++) {
                    futures.add(pool.submit(() -> {
                        start.await();
                        return take(node, each);
                    }));
                }
            }
            start.countDown();
            List<List<DailySerial>> all = new ArrayList<>();
            for (Future<List<DailySerial>> future : futures) {
                all.add(future.get());
            }
            return all;
        } finally {
            pool.shutdownNow();
        }
    }

    /** A fixed-offset zone in which Redis's clock reaches midnight {@code in} from now. */
    static ZoneId zoneWithMidnightIn(RedissonClient redis, Duration in) {
        long redisNow = redis.getScript(StringCodec.INSTANCE).<Long>eval(org.redisson.api.RScript.Mode.READ_ONLY,
                "return tonumber(redis.call('TIME')[1])", org.redisson.api.RScript.ReturnType.LONG);
        long midnightAt = redisNow + in.toSeconds();
        long secondOfDay = Math.floorMod(midnightAt, 86_400L);
        // local time = utc + offset; local midnight at midnightAt needs offset = -secondOfDay (mod a day), within +-18 h.
        long offset = -secondOfDay;
        if (offset < -64_800) {
            offset += 86_400;
        }
        return ZoneOffset.ofTotalSeconds((int) offset);
    }

    private DailySerialGenerator generator(String name, Supplier<RedissonClient> redis, SegmentStore store,
                                           DailySerialGenerator.Settings settings, boolean checkServer) {
        DailySerialGenerator generator = new DailySerialGenerator(name, new RedisDayCounter(name, redis, "t", checkServer), store, settings);
        closing.add(generator);
        return generator;
    }

    private static DailySerialGenerator.Settings settings(ZoneId zone, long step) {
        return new DailySerialGenerator.Settings(zone, SerialFormat.parse(SerialFormat.DEFAULT), step, Duration.ofSeconds(10));
    }

    private SegmentStore store() throws SQLException {
        DataSource h2 = Database.H2.dataSource();
        return new JdbcSegmentStore(h2, tables.newSegmentTable(h2));
    }

    /** A directory of the test's own for a server's files (a replica's full sync writes an RDB file). */
    private String directory(String name) throws java.io.IOException {
        return Files.createDirectories(serverFiles.resolve(name + "-" + closing.size())).toString();
    }

    private OwnRedis ownRedis() throws java.io.IOException {
        RedisProcess server = RedisProcess.startOnFreePort("--dir", directory("server"));
        OwnRedis redis = new OwnRedis(server, client(server.url()));
        closing.add(server);
        return redis;
    }

    private RedissonClient client(String url) {
        Config config = new Config();
        config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(2).setSubscriptionConnectionMinimumIdleSize(1);
        RedissonClient client = Redisson.create(config);
        closing.add(client::shutdown);
        return client;
    }

    /** A Redis server of the test's own, which it may flush, restart or fail over. */
    private final class OwnRedis {
        final RedisProcess server;
        final RedissonClient client;

        OwnRedis(RedisProcess server, RedissonClient client) {
            this.server = server;
            this.client = client;
        }

        RedissonClient newClient() {
            return client(server.url());
        }
    }
}
