package dev.distlock.idsoak;

import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testkit.ChildJvm;
import dev.distlock.testkit.RedisProcess;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The acceptance soak of daily serial numbers: 4 JVMs x 4 threads taking numbers as fast as they
 * can from one generator name, through a real Redis server of the test's own and a real H2
 * database served over TCP; every number written to disk and checked across all JVMs.
 * <ul>
 *   <li>Across a midnight: the zone is chosen so that Redis's clock reaches midnight 8 s into the
 *   run, and each JVM's own clock is set apart (-90 s, -3 s, 0, +90 s) as servers' clocks drift.
 *   No number repeats, the new day starts at 1, and no call that started after another call had
 *   received a new-day number got an old-day one: all nodes turn at one instant.</li>
 *   <li>Redis flushed 5 s into the run and killed and restarted empty 10 s into it: no number
 *   repeats.</li>
 * </ul>
 */
class DailySerialSoakIT {

    private static final int JVMS = 4;
    private static final int THREADS = 4;
    private static final long[] SKEWS = {-90_000, -3_000, 0, 90_000};
    private static final long RUN_MILLIS = 16_000;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void fourJvmsAcrossAMidnightNeverRepeatAndTurnAtOneInstant() throws Exception {
        try (Stores stores = Stores.start()) {
            Outcome outcome = run(stores, true, () -> { });
            System.out.println("daily serial soak across midnight: " + outcome);
            assertEquals(0, outcome.duplicates, outcome.toString());
            assertEquals(2, outcome.perDay.size(), "numbers of two days: " + outcome);
            LocalDate newDay = outcome.perDay.lastKey();
            assertEquals(1, outcome.firstSerial.get(newDay), "the new day starts at 1: " + outcome);
            assertEquals(0, outcome.oldAfterNew, "old-day numbers given to calls that started after a new-day number was received: " + outcome);
            assertTrue(outcome.total >= 20_000, "a soak of at least 20,000 numbers: " + outcome);
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void fourJvmsNeverRepeatWhenRedisIsFlushedAndRestartedMidDay() throws Exception {
        try (Stores stores = Stores.start()) {
            Outcome outcome = run(stores, false, () -> {
                Thread.sleep(5_000);
                stores.redis.call("FLUSHALL");
                Thread.sleep(5_000);
                stores.redis.kill();
                Thread.sleep(500);
                stores.redis.start();
            });
            System.out.println("daily serial soak, Redis flushed and restarted: " + outcome);
            assertEquals(0, outcome.duplicates, outcome.toString());
            assertTrue(outcome.total >= 20_000, "a soak of at least 20,000 numbers: " + outcome);
        }
    }

    interface During {
        void run() throws Exception;
    }

    private Outcome run(Stores stores, boolean midnight, During during) throws Exception {
        Path dir = Files.createTempDirectory("distlock-serial-soak-");
        String name = "soak-" + UUID.randomUUID().toString().substring(0, 8);
        List<ChildJvm> children = new ArrayList<>();
        try {
            long deadline = System.currentTimeMillis() + TimeUnit.MINUTES.toMillis(2);
            // The zone is handed over with "go", once every JVM is up, so that midnight falls 8 s into the run.
            for (int i = 0; i < JVMS; i++) {
                String jvm = "jvm-" + (i + 1);
                children.add(ChildJvm.start(jvm, DailySerialSoakChild.class, List.of(stores.redis.url(), stores.jdbcUrl, stores.table,
                        name, "go", Long.toString(SKEWS[i]), "100", Integer.toString(THREADS), Long.toString(RUN_MILLIS),
                        dir.toString(), jvm, Long.toString(TimeUnit.MINUTES.toMillis(3)), Long.toString(ProcessHandle.current().pid()))));
            }
            while (countFiles(dir, DailySerialSoakChild.READY_SUFFIX) < JVMS) {
                for (ChildJvm child : children) {
                    assertTrue(child.process.isAlive(), () -> child.name + " died before the start:\n" + child.output());
                }
                assertTrue(System.currentTimeMillis() < deadline, "the children did not get ready");
                Thread.sleep(10);
            }
            long redisNow = Long.parseLong(((List<?>) stores.redis.call("TIME")).get(0).toString());
            int offset = midnight ? offsetWithMidnightAt(redisNow + 8) : 0;
            Files.writeString(dir.resolve(DailySerialSoakChild.GO_FILE + ".tmp"), Integer.toString(offset));
            Files.move(dir.resolve(DailySerialSoakChild.GO_FILE + ".tmp"), dir.resolve(DailySerialSoakChild.GO_FILE));
            during.run();
            StringBuilder reports = new StringBuilder();
            for (ChildJvm child : children) {
                assertTrue(child.process.waitFor(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS),
                        () -> child.name + " did not finish:\n" + child.output());
                String output = child.output();
                assertEquals(0, child.process.exitValue(), () -> child.name + " failed:\n" + output);
                output.lines().filter(line -> line.startsWith(DailySerialSoakChild.RESULT_PREFIX) || line.startsWith("first failed"))
                        .forEach(line -> reports.append(line).append("; "));
            }
            return Outcome.read(dir, reports.toString());
        } finally {
            children.forEach(ChildJvm::kill);
            children.forEach(ChildJvm::deleteOutput);
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(dir);
        }
    }

    /** The offset of a zone whose midnight is at epoch second {@code at}, within +-18 h. */
    private static int offsetWithMidnightAt(long at) {
        long offset = -Math.floorMod(at, 86_400L);
        return (int) (offset < -64_800 ? offset + 86_400 : offset);
    }

    private static long countFiles(Path dir, String suffix) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(file -> file.getFileName().toString().endsWith(suffix)).count();
        }
    }

    /** What the children took: counts per day, duplicates, and calls that got an old day after the switch. */
    record Outcome(long total, long duplicates, TreeMap<LocalDate, Long> perDay, Map<LocalDate, Long> firstSerial,
                   Map<LocalDate, Long> lastSerial, long oldAfterNew, String children) {

        static Outcome read(Path dir, String children) throws Exception {
            List<long[]> all = new ArrayList<>();
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.filter(f -> f.getFileName().toString().endsWith(DailySerialSoakChild.SERIALS_SUFFIX)).toList()) {
                    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
                        while (true) {
                            long day;
                            try {
                                day = in.readLong();
                            } catch (EOFException end) {
                                break;
                            }
                            all.add(new long[]{day, in.readLong(), in.readLong(), in.readLong()});
                        }
                    }
                }
            }
            all.sort(Comparator.<long[]>comparingLong(n -> n[0]).thenComparingLong(n -> n[1]));
            long duplicates = 0;
            TreeMap<LocalDate, Long> perDay = new TreeMap<>();
            Map<LocalDate, Long> first = new HashMap<>();
            Map<LocalDate, Long> last = new HashMap<>();
            for (int i = 0; i < all.size(); i++) {
                long[] n = all.get(i);
                if (i > 0 && all.get(i - 1)[0] == n[0] && all.get(i - 1)[1] == n[1]) {
                    duplicates++;
                }
                LocalDate day = LocalDate.ofEpochDay(n[0]);
                perDay.merge(day, 1L, Long::sum);
                first.merge(day, n[1], Math::min);
                last.merge(day, n[1], Math::max);
            }
            long oldAfterNew = 0;
            if (perDay.size() == 2) {
                long newDay = perDay.lastKey().toEpochDay();
                long firstNewReceived = all.stream().filter(n -> n[0] == newDay).mapToLong(n -> n[3]).min().orElseThrow();
                oldAfterNew = all.stream().filter(n -> n[0] != newDay && n[2] > firstNewReceived).count();
            }
            return new Outcome(all.size(), duplicates, perDay, first, last, oldAfterNew, children);
        }

        @Override
        public String toString() {
            StringBuilder days = new StringBuilder();
            perDay.forEach((day, count) -> days.append(day).append(": ").append(count).append(" numbers, serials ")
                    .append(firstSerial.get(day)).append("..").append(lastSerial.get(day)).append(" (")
                    .append(lastSerial.get(day) - firstSerial.get(day) + 1 - count).append(" skipped); "));
            return total + " numbers, " + duplicates + " repeated, " + oldAfterNew + " old-day after the switch; " + days + children;
        }
    }

    /** A Redis server of the soak's own (it is flushed and restarted) and an H2 database over TCP. */
    private record Stores(RedisProcess redis, TestDatabases.H2Server h2, String jdbcUrl, String table) implements AutoCloseable {

        static Stores start() throws Exception {
            RedisProcess redis = RedisProcess.startOnFreePort();
            TestDatabases.H2Server h2 = TestDatabases.startH2TcpServer();
            String url = h2.url("serial-soak-" + UUID.randomUUID().toString().substring(0, 8));
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL(url);
            new JdbcSegmentStore(dataSource, JdbcSegmentStore.DEFAULT_TABLE).createTableIfAbsent();
            return new Stores(redis, h2, url, JdbcSegmentStore.DEFAULT_TABLE);
        }

        @Override
        public void close() {
            redis.close();
            h2.close();
        }
    }
}
