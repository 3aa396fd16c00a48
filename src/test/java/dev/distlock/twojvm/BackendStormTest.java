package dev.distlock.twojvm;

import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import dev.distlock.testkit.ChildJvm;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutual exclusion across JVMs on the ZooKeeper and database backends (Redis has
 * {@link TwoJvmMutualExclusionTest}): {@value #JVMS} JVMs x {@value #THREADS} threads x
 * {@value #ITERATIONS} sections = 8,000 increments of one counter per backend, every one of them
 * kept. The twin runs the same JVMs with no lock and must lose updates.
 */
@Timeout(300)
class BackendStormTest {

    private static final int JVMS = 2;
    private static final int THREADS = 4;
    private static final int ITERATIONS = 1_000;

    @Test
    void zooKeeperLocksLoseNoUpdateAcrossJvms() throws Exception {
        try (TestingServer server = new TestingServer(true)) {
            Storm storm = run("zookeeper", server.getConnectString(), "/storm", ITERATIONS);
            storm.assertExact();
        }
    }

    @Test
    void databaseLocksLoseNoUpdateAcrossJvms() throws Exception {
        try (TestDatabases.H2Server h2 = TestDatabases.startH2TcpServer()) {
            Storm storm = run("jdbc", h2.url("storm"), "storm_lock", ITERATIONS);
            storm.assertExact();
        }
    }

    @Test
    void databaseLocksOnPostgreSqlLoseNoUpdateAcrossJvms() throws Exception {
        Database.POSTGRESQL.assumeAvailable();
        String table = TestDatabases.uniqueTable("storm_lock");
        try {
            run("jdbc", Database.POSTGRESQL.url(), table, ITERATIONS).assertExact();
        } finally {
            TestDatabases.dropTable(Database.POSTGRESQL.dataSource(), table);
            TestDatabases.dropTable(Database.POSTGRESQL.dataSource(), table + "_name");
        }
    }

    @Test
    void databaseLocksOnMariaDbLoseNoUpdateAcrossJvms() throws Exception {
        Database.MARIADB.assumeAvailable();
        String table = TestDatabases.uniqueTable("storm_lock");
        try {
            run("jdbc", Database.MARIADB.url(), table, ITERATIONS).assertExact();
        } finally {
            TestDatabases.dropTable(Database.MARIADB.dataSource(), table);
            TestDatabases.dropTable(Database.MARIADB.dataSource(), table + "_name");
        }
    }

    @Test
    void withoutALockTheSameJvmsLoseUpdates() throws Exception {
        Storm storm = run("none", "-", "-", 200);
        assertTrue(storm.counter < storm.planned, "no update was lost without a lock: " + storm);
    }

    record Storm(String backend, long planned, long counter, List<String> outputs) {
        void assertExact() {
            assertEquals(planned, counter, () -> "lost updates on " + backend + "\n" + String.join("\n", outputs));
        }
    }

    private static Storm run(String backend, String connection, String where, int iterations) throws Exception {
        Path counter = Files.createTempFile("distlock-storm-", ".counter");
        Path go = Files.createTempFile("distlock-storm-", ".go");
        Files.delete(go);
        Files.write(counter, ByteBuffer.allocate(Long.BYTES).putLong(0).array());
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 1; i <= JVMS; i++) {
                children.add(ChildJvm.start(backend + "-" + i, BackendStormChild.class, List.of(backend, connection, where,
                        counter.toString(), go.toString(), Integer.toString(THREADS), Integer.toString(iterations),
                        Long.toString(ProcessHandle.current().pid()))));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            for (ChildJvm child : children) {
                while (!child.output().contains("READY")) {
                    assertTrue(child.process.isAlive() && System.nanoTime() < deadline, () -> "not ready:\n" + child.output());
                    Thread.sleep(20);
                }
            }
            Files.createFile(go);
            List<String> outputs = new ArrayList<>();
            for (ChildJvm child : children) {
                assertTrue(child.process.waitFor(200, TimeUnit.SECONDS), () -> "did not finish:\n" + child.output());
                String output = child.output();
                outputs.add(child.name + " exit " + child.process.exitValue() + ": " + lastLine(output));
                assertEquals(0, child.process.exitValue(), () -> child.name + " failed:\n" + output);
            }
            long value = ByteBuffer.wrap(Files.readAllBytes(counter)).getLong();
            Storm storm = new Storm(backend, (long) JVMS * THREADS * iterations, value, outputs);
            System.out.println("[storm] " + storm);
            return storm;
        } finally {
            children.forEach(ChildJvm::kill);
            children.forEach(ChildJvm::deleteOutput);
            Files.deleteIfExists(counter);
            Files.deleteIfExists(go);
        }
    }

    private static String lastLine(String output) {
        return output.lines().filter(line -> line.startsWith("STORM-RESULT")).findFirst().orElse("(no result line)");
    }
}
