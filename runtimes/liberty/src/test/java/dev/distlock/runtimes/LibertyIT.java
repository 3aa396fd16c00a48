package dev.distlock.runtimes;

import dev.distlock.testkit.Directories;
import dev.distlock.testkit.Ports;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * distlock on Open Liberty: full CDI (Weld), so its portable extension. The application is a WAR
 * with distlock in WEB-INF/lib; each instance is a Liberty server of its own (its own directory
 * under {@code target/liberty/servers}, its own HTTP port) that the full runtime unpacked by the
 * build runs with the features below. No feature is installed: the runtime has them all.
 */
class LibertyIT extends RuntimeChecks {

    /**
     * What the application needs of Liberty: CDI, Concurrency, REST, JNDI (distlock finds the transaction
     * registry there), MicroProfile Config, Fault Tolerance, Health and Telemetry 2.0, whose OpenTelemetry API
     * Liberty shows an application only when asked to ({@code +third-party}), and JPA
     * (EclipseLink) over an H2 default data source, for the flush checks.
     */
    private static final String SERVER_XML = """
            <server description="distlock's runtime check">
                <featureManager>
                    <feature>cdi-4.0</feature>
                    <feature>concurrent-3.0</feature>
                    <feature>restfulWS-3.1</feature>
                    <feature>jndi-1.0</feature>
                    <feature>mpConfig-3.1</feature>
                    <feature>mpFaultTolerance-4.1</feature>
                    <feature>mpHealth-4.0</feature>
                    <feature>mpTelemetry-2.0</feature>
                    <feature>persistence-3.1</feature>
                </featureManager>
                <library id="h2">
                    <file name="${h2.jar}"/>
                </library>
                <dataSource id="DefaultDataSource">
                    <jdbcDriver libraryRef="h2" javax.sql.XADataSource="org.h2.jdbcx.JdbcDataSource"
                                javax.sql.ConnectionPoolDataSource="org.h2.jdbcx.JdbcDataSource" javax.sql.DataSource="org.h2.jdbcx.JdbcDataSource"/>
                    <properties URL="jdbc:h2:mem:notes;DB_CLOSE_DELAY=-1" user="sa" password=""/>
                </dataSource>
                <httpEndpoint id="defaultHttpEndpoint" host="127.0.0.1" httpPort="${http.port}" httpsPort="-1"/>
                <webApplication location="app.war" contextRoot="/app">
                    <classloader apiTypeVisibility="+third-party"/>
                </webApplication>
            </server>
            """;

    /** Liberty's messages: the application failed to start, started, and the server is ready. */
    private static final String APP_FAILED = "CWWKZ0002E";
    private static final String APP_STARTED = "CWWKZ0001I";
    private static final String SERVER_READY = "CWWKF0011I";

    /** distlock's timers reach OpenTelemetry (Liberty's MicroProfile Telemetry 2.0), in seconds, by method and mode. */
    @Test
    void lockTimesReachOpenTelemetryInSeconds() throws Exception {
        assertHoldTimesExported(instance(0));
    }

    /** Each locked call's lock is a span on the caller's trace (Liberty's MicroProfile Telemetry), named by its key's template. */
    @Test
    void lockedCallsAreSpansOnTheCallersTrace() throws Exception {
        assertLockSpansExported(instance(0));
    }

    /** EclipseLink flushes in a synchronization of its own: distlock's check must run after it. */
    @Test
    void theCheckBeforeCommitRunsAfterTheFlush() throws Exception {
        assertTheCheckRunsAfterTheFlush(instance(0));
    }

    /** Jakarta Concurrency's {@code @Asynchronous} outside the lock: taken on the managed executor's thread. */
    @Test
    void aConcurrencyAsynchronousLockedMethodNeverHasTwoHolders() throws Exception {
        assertConcurrencyAsynchronousNeverHasTwoHolders();
    }

    @Override
    protected Instance start(String name, Map<String, String> settings) throws Exception {
        Path home = Path.of(System.getProperty("liberty.home"));
        Path userDir = Path.of("target", "liberty").toAbsolutePath();
        Path server = userDir.resolve("servers").resolve(name);
        Directories.delete(server);
        Files.createDirectories(server.resolve("apps"));
        Files.copy(Path.of(System.getProperty("app.war")), server.resolve("apps").resolve("app.war"), StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(server.resolve("server.xml"), SERVER_XML);
        int port = Ports.free();
        // Everything the server logs on its console, where the checks read it (metrics are INFO).
        Files.writeString(server.resolve("bootstrap.properties"),
                "http.port=" + port + "\ncom.ibm.ws.logging.console.log.level=INFO\nh2.jar=" + System.getProperty("h2.jar") + "\n");
        Map<String, String> all = new HashMap<>(distlockSettings());
        all.putAll(TELEMETRY_TO_LOG);
        all.putAll(settings);
        List<String> options = new ArrayList<>(List.of("-Xms64m", "-Xmx384m"));
        all.forEach((key, value) -> options.add("-D" + key + "=" + value));
        Files.write(server.resolve("jvm.options"), options);

        Path log = Path.of("target", "liberty-" + name + ".log");
        ProcessBuilder builder = new ProcessBuilder("bash", home.resolve("bin").resolve("server").toString(), "run", name)
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("WLP_USER_DIR", userDir.toString());
        return new Instance(builder.start(), "http://127.0.0.1:" + port + "/app", log);
    }

    /** Liberty keeps running and reports the application that failed to start; it serves nothing of it. */
    @Override
    protected void assertRefused(Instance broken, String message) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        String log;
        while (!(log = read(broken.log())).contains(SERVER_READY) || !(log.contains(APP_FAILED) || log.contains(APP_STARTED))) {
            assertTrue(broken.process().isAlive() && System.nanoTime() < deadline, () -> "Liberty did not finish starting: " + read(broken.log()));
            Thread.sleep(200);
        }
        assertTrue(log.contains(message), log);
        assertTrue(log.contains(APP_FAILED), "the application was not reported as failed: " + log);
        assertEquals(404, send(broken, "GET", "/stock/none").statusCode(), "the broken application answers");
    }
}
