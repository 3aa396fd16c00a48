package dev.distlock.idsoak;

import dev.distlock.testkit.Directories;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Segments kept across restarts, on 4 JVMs sharing one H2 database over TCP: each JVM starts and
 * ends a generator of one name 50 times, with a random number of ids on 4 threads per round, most
 * rounds closing in order (a quarter of those while the threads still call {@code nextId()}), a
 * fifth crashing. No id may repeat across all JVMs and rounds; no id issued may still be kept as a
 * spare; orderly closes burn no id; every id burned is one a crash lost.
 */
class SegmentRestartSoakIT {

    private static final int JVMS = 4;
    private static final int ROUNDS = 50;
    private static final int THREADS = 4;
    private static final int MAX_IDS_PER_ROUND = 100_000;
    private static final String TABLE = "distlock_id_segment";
    private static final String NAME = "restarts";
    /** JVM start-up on two busy cores included; a healthy run takes well under a minute. */
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(3);
    private static final long CHILD_DEADLINE_MARGIN_MILLIS = 10_000;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void restartsOnFourJvmsNeverRepeatAnIdAndOrderlyClosesBurnNone() throws Exception {
        Path dir = Files.createTempDirectory("distlock-restart-soak-");
        List<ChildJvm> children = new ArrayList<>();
        try (TestDatabases.H2Server h2 = TestDatabases.startH2TcpServer()) {
            String url = h2.url("restart-soak-" + UUID.randomUUID().toString().substring(0, 8));
            long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
            long seed = System.nanoTime();
            for (int i = 1; i <= JVMS; i++) {
                String jvm = "jvm-" + i;
                children.add(ChildJvm.start(jvm, SegmentRestartSoakChild.class, SegmentRestartSoakChild.arguments(url, TABLE, NAME,
                        ROUNDS, THREADS, MAX_IDS_PER_ROUND, seed + i, dir, jvm, RUN_TIMEOUT.toMillis() + CHILD_DEADLINE_MARGIN_MILLIS)));
            }
            awaitReady(dir, children, deadline);
            long released = System.nanoTime();
            Files.createFile(dir.resolve(SegmentRestartSoakChild.GO_FILE));
            for (ChildJvm child : children) {
                if (!child.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    throw failure("the soak did not finish within " + RUN_TIMEOUT, children);
                }
            }
            long goToDoneMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);

            List<Map<String, String>> results = new ArrayList<>();
            for (ChildJvm child : children) {
                results.add(result(child));
            }
            long[] ids = readAll(dir);
            Arrays.parallelSort(ids);
            long duplicates = duplicates(ids);
            DataSource database = TestDatabases.dataSourceFor(url);
            long highWater = highWater(database);
            List<long[]> kept = keptSpares(database);
            long keptIds = kept.stream().mapToLong(spare -> spare[1] - spare[0] + 1).sum();
            long issuedInKept = kept.stream().mapToLong(spare -> issuedWithin(ids, spare[0], spare[1])).sum();
            long burned = highWater - (ids.length - duplicates) - keptIds;
            long crashes = sum(results, "crashes");
            long lostAtCrashes = sum(results, "lostAtCrashes");

            System.out.printf("restart soak: %d JVMs x %d rounds = %d starts (%d orderly closes, %d of them under load, %d crashes); "
                            + "%,d ids, %d duplicates, %d errors, %d out of order; %,d spares taken; high-water mark %,d; "
                            + "%,d ids in %d spares kept at the end, %d of them issued; %,d ids burned (%,d lost at crashes, "
                            + "%,d per crash; %,d at orderly closes); go to done %,d ms%n",
                    JVMS, ROUNDS, JVMS * ROUNDS, sum(results, "closes"), sum(results, "closesUnderLoad"), crashes,
                    ids.length, duplicates, sum(results, "errors"), sum(results, "nonIncreasing"), sum(results, "sparesTaken"),
                    highWater, keptIds, kept.size(), issuedInKept, burned, lostAtCrashes,
                    crashes == 0 ? 0 : lostAtCrashes / crashes, sum(results, "lostAtCloses"), goToDoneMillis);
            assertAll(
                    () -> assertTrue(children.stream().allMatch(child -> child.process.exitValue() == 0),
                            () -> "every JVM exits 0\n" + outputs(children)),
                    () -> assertEquals(0, duplicates, "ids issued twice across all JVMs and rounds"),
                    () -> assertEquals(0, sum(results, "errors"), () -> "failed nextId calls\n" + outputs(children)),
                    () -> assertEquals(0, sum(results, "nonIncreasing"), "ids not above the thread's previous one"),
                    () -> assertEquals(0, issuedInKept, "issued ids still kept as spares"),
                    () -> assertEquals(0, sum(results, "lostAtCloses"), "ids lost at orderly closes"),
                    () -> assertEquals(lostAtCrashes, burned, "every id burned is one a crash lost"),
                    () -> assertTrue(sum(results, "sparesTaken") > 0, "starts took kept spares"));
        } finally {
            for (ChildJvm child : children) {
                child.kill();
                child.deleteOutput();
            }
            Directories.deleteQuietly(dir);
        }
    }

    private static void awaitReady(Path dir, List<ChildJvm> children, long deadline) throws IOException, InterruptedException {
        while (true) {
            long ready;
            try (Stream<Path> files = Files.list(dir)) {
                ready = files.filter(file -> file.getFileName().toString().endsWith(SegmentRestartSoakChild.READY_SUFFIX)).count();
            }
            if (ready == children.size()) {
                return;
            }
            for (ChildJvm child : children) {
                if (!child.process.isAlive()) {
                    throw failure(child.name + " exited with " + child.process.exitValue() + " before the start", children);
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw failure("the children were not all ready within " + RUN_TIMEOUT, children);
            }
            Thread.sleep(10);
        }
    }

    /** Of sorted ids, how many equal the one before. */
    private static long duplicates(long[] sorted) {
        long duplicates = 0;
        for (int i = 1; i < sorted.length; i++) {
            duplicates += sorted[i] == sorted[i - 1] ? 1 : 0;
        }
        return duplicates;
    }

    private static Map<String, String> result(ChildJvm child) {
        String output = child.output();
        String line = output.lines().filter(text -> text.startsWith(SegmentRestartSoakChild.RESULT_PREFIX)).findFirst()
                .orElseThrow(() -> new AssertionError(child.name + " printed no result (exit " + child.process.exitValue() + ")\n" + output));
        Map<String, String> fields = new HashMap<>();
        for (String field : line.substring(SegmentRestartSoakChild.RESULT_PREFIX.length()).trim().split(" ")) {
            String[] pair = field.split("=", 2);
            fields.put(pair[0], pair[1]);
        }
        return fields;
    }

    private static long sum(List<Map<String, String>> results, String key) {
        return results.stream().mapToLong(result -> Long.parseLong(result.get(key))).sum();
    }

    private static long[] readAll(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.filter(file -> file.getFileName().toString().endsWith(SegmentRestartSoakChild.IDS_SUFFIX)).sorted().toList();
        }
        List<long[]> parts = new ArrayList<>();
        for (Path file : files) {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
            long[] ids = new long[bytes.remaining() / Long.BYTES];
            bytes.asLongBuffer().get(ids);
            parts.add(ids);
        }
        return parts.stream().flatMapToLong(Arrays::stream).toArray();
    }

    private static long highWater(DataSource database) throws SQLException {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT max_id FROM " + TABLE + " WHERE name = '" + NAME + "'")) {
            return row.next() ? row.getLong(1) : 0;
        }
    }

    /** The spares kept at the end, as {first, last}. */
    private static List<long[]> keptSpares(DataSource database) throws SQLException {
        List<long[]> spares = new ArrayList<>();
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT first_id, last_id FROM " + TABLE + "_spare WHERE name = '" + NAME + "'")) {
            while (row.next()) {
                spares.add(new long[] {row.getLong(1), row.getLong(2)});
            }
        }
        return spares;
    }

    /** How many of the sorted {@code ids} lie in {@code first..last}. */
    private static long issuedWithin(long[] ids, long first, long last) {
        return insertionPoint(Arrays.binarySearch(ids, last + 1)) - insertionPoint(Arrays.binarySearch(ids, first));
    }

    private static int insertionPoint(int binarySearchResult) {
        return binarySearchResult >= 0 ? binarySearchResult : -binarySearchResult - 1;
    }

    private static AssertionError failure(String what, List<ChildJvm> children) {
        children.forEach(ChildJvm::kill);
        return new AssertionError(what + "\n" + outputs(children));
    }

    private static String outputs(List<ChildJvm> children) {
        return children.stream().map(child -> "----- " + child.name + " (exit "
                        + (child.process.isAlive() ? "none, still alive" : child.process.exitValue()) + ") -----\n" + child.output())
                .collect(Collectors.joining("\n"));
    }

}
