package dev.distlock.runtimes;

import dev.distlock.testkit.Ports;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * distlock on Quarkus: CDI Lite, so its build compatible extension and no portable extension. The
 * application is built by quarkus-maven-plugin (target/quarkus-app) and started with {@code java -jar}.
 */
class QuarkusIT extends RuntimeChecks {

    /**
     * The shapes at 1,000 calls each here: WildFly and Open Liberty run 4,000 on two other transaction
     * managers, and the build compatible extension's commit guard runs each shape in the library's
     * {@code TransactionShapesLiteTest}; this shows it bound on Quarkus itself.
     */
    @Override
    protected int shapeCalls() {
        return 1_000;
    }

    /** Each locked call's lock is a span on the caller's trace (Quarkus's OpenTelemetry extension), named by its key's template. */
    @Test
    void lockedCallsAreSpansOnTheCallersTrace() throws Exception {
        assertLockSpansExported(instance(0));
    }

    @Override
    protected Instance start(String name, Map<String, String> settings) throws Exception {
        int port = Ports.free();
        Path log = Path.of("target", "quarkus-" + name + ".log");
        Map<String, String> all = new HashMap<>(distlockSettings());
        all.putAll(settings);
        all.put("quarkus.http.port", Integer.toString(port));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
        all.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add("-jar");
        command.add(System.getProperty("quarkus.app", "target/quarkus-app/quarkus-run.jar"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new Instance(process, "http://127.0.0.1:" + port, log);
    }

    /** Quarkus checks the run-time configuration as it starts: the process ends with the message. */
    @Override
    protected void assertRefused(Instance broken, String message) throws Exception {
        assertTrue(broken.process().waitFor(90, TimeUnit.SECONDS), "the application started with a broken lock");
        String log = Files.readString(broken.log());
        assertNotEquals(0, broken.process().exitValue(), log);
        assertTrue(log.contains(message), log);
    }
}
