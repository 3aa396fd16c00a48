package dev.distlock.testkit.backend;

import dev.distlock.spi.LockBackend;

import dev.distlock.testkit.ChildJvm;

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
 * Mutual exclusion across JVMs for any backend: {@value #JVMS} JVMs x {@value #THREADS} threads x
 * {@code iterations} sections of one counter in a file they share, every increment kept (1,000
 * iterations make 8,000 sections). A backend's test names a {@link Connector} and where its store
 * is; {@link #runUnlocked} is the twin that shows the harness can fail.
 */
public final class BackendStorm {

    /** Makes the backend in the child JVM; a public class with a public no-argument constructor. */
    public interface Connector {
        LockBackend connect(String connection, String where) throws Exception;
    }

    static final String NO_LOCK = "none";
    private static final int JVMS = 2;
    private static final int THREADS = 4;
    private static final long FINISH_SECONDS = 400;

    private BackendStorm() {
    }

    /** Runs the storm on the backend {@code connector} makes and asserts that no update was lost. */
    public static Storm runExact(Class<? extends Connector> connector, String connection, String where, int iterations)
            throws Exception {
        Storm storm = run(connector.getName(), connection, where, iterations);
        storm.assertExact();
        return storm;
    }

    /** The same JVMs and sections with no lock. */
    public static Storm runUnlocked(int iterations) throws Exception {
        return run(NO_LOCK, "-", "-", iterations);
    }

    public record Storm(String backend, long planned, long counter, List<String> outputs) {
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
                children.add(ChildJvm.start("storm-" + i, StormChild.class, List.of(backend, connection, where,
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
                // PostgreSQL forks a process per connection, and the storm's data sources open one per
                // statement: 8,000 sections took 149-175 s on a quiet 2-core machine and over 200 s with
                // builds beside it. The storm is about lost updates, not speed.
                assertTrue(child.process.waitFor(FINISH_SECONDS, TimeUnit.SECONDS), () -> "did not finish within " + FINISH_SECONDS
                        + " s:\n" + child.output());
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
