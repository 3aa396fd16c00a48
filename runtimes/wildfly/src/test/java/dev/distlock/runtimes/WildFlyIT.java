package dev.distlock.runtimes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.distlock.testkit.DashboardPanels;
import dev.distlock.testkit.LivePrometheus;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * distlock on WildFly: full CDI, so its portable extension (the build compatible one gives way).
 * The application is a WAR with distlock in WEB-INF/lib; each instance is a WildFly server of its
 * own (its own base directory and port offset, the {@code standalone-microprofile} profile) that
 * deploys it at boot. Each server sends its OpenTelemetry metrics to its log and over OTLP to an
 * {@link OtlpMetricsForPrometheus} of its own, where a live Prometheus can scrape them.
 */
class WildFlyIT extends RuntimeChecks {

    /** The ports of standalone-microprofile.xml, all moved by the offset. */
    private static final int[] PORTS = {8080, 8443, 9990, 9993, 8009, 4712, 4713};

    /** Each started server's OTLP metrics, shown for Prometheus, by the server's base address. */
    private final Map<String, OtlpMetricsForPrometheus> metrics = new java.util.concurrent.ConcurrentHashMap<>();

    @AfterAll
    void closeMetrics() {
        metrics.values().forEach(OtlpMetricsForPrometheus::close);
    }

    /**
     * MicroProfile 7: distlock's meters through MicroProfile Telemetry 2 (OpenTelemetry metrics, no
     * MicroProfile Metrics), exported over OTLP by WildFly and shown to a live Prometheus as an
     * OpenTelemetry Collector's Prometheus exporter shows them: after a locked storm over both
     * servers, every dashboard panel answers from the scrape (as {@code LockedShopIT} checks it on
     * Payara 6's MicroProfile Metrics). Skipped by assumption without the {@code prometheus} binary.
     */
    @Test
    void everyDashboardPanelAnswersFromALiveScrapeOfOpenTelemetryMetrics() throws Exception {
        java.util.Optional<Path> binary = LivePrometheus.binary();
        assumeTrue(binary.isPresent(), LivePrometheus.MISSING);
        List<String> scraped = List.of(metrics.get(instance(0).base()).scrapeUrl(), metrics.get(instance(1).base()).scrapeUrl());
        try (LivePrometheus prometheus = LivePrometheus.start(binary.get(), scraped, Path.of("target", "prometheus").toAbsolutePath())) {
            lockedStorm("DASHBOARD", 2_000, 500);
            java.time.Instant ended = java.time.Instant.now();
            java.time.Instant at = ended.plusSeconds(4); // an export (1 s) and a scrape (1 s) after the storm's last order, twice
            Waits.until(15_000, () -> java.time.Instant.now().isAfter(at.plusSeconds(1)));
            List<String> servers = scraped.stream().map(url -> java.net.URI.create(url).getAuthority()).toList();
            DashboardPanels.assertEveryPanelAnswers(prometheus, DashboardPanels.read(Path.of(System.getProperty("dashboard"))), servers, at);
        }
    }

    /** distlock's timers reach OpenTelemetry (WildFly's MicroProfile Telemetry), in seconds, by method and mode. */
    @Test
    void lockTimesReachOpenTelemetryInSeconds() throws Exception {
        assertHoldTimesExported(instance(0));
    }

    /** Each locked call's lock is a span on the caller's trace (WildFly's MicroProfile Telemetry), named by its key's template. */
    @Test
    void lockedCallsAreSpansOnTheCallersTrace() throws Exception {
        assertLockSpansExported(instance(0));
    }

    /** Hibernate flushes in an interposed synchronization registered after distlock's: the check must still run after it. */
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
        Path home = Path.of(System.getProperty("wildfly.home"));
        Path base = Path.of("target", "wildfly-" + name).toAbsolutePath();
        copy(home.resolve("standalone"), base);
        Files.copy(Path.of(System.getProperty("app.war")), base.resolve("deployments").resolve("app.war"),
                StandardCopyOption.REPLACE_EXISTING);
        int offset = freeOffset();
        OtlpMetricsForPrometheus otlp = OtlpMetricsForPrometheus.start();
        Map<String, String> all = new HashMap<>(distlockSettings());
        all.putAll(TELEMETRY_TO_LOG);
        all.put("otel.metrics.exporter", "logging,otlp");
        // WildFly's exporter (SmallRye OpenTelemetry's) reads the settings for every signal, not the
        // metrics-only ones, which it passes over (it then sent gRPC to localhost:4317); the traces go to the log.
        all.put("otel.exporter.otlp.endpoint", otlp.endpoint());
        all.put("otel.exporter.otlp.protocol", "http/protobuf");
        all.putAll(settings);
        List<String> command = new ArrayList<>(List.of("bash", home.resolve("bin").resolve("standalone.sh").toString(),
                "-c", "standalone-microprofile.xml",
                "-Djboss.server.base.dir=" + base,
                "-Djboss.socket.binding.port-offset=" + offset));
        all.forEach((key, value) -> command.add("-D" + key + "=" + value));
        Path log = Path.of("target", "wildfly-" + name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("JAVA_OPTS", "-Xms64m -Xmx384m -Djava.net.preferIPv4Stack=true");
        String url = "http://127.0.0.1:" + (8080 + offset) + "/app";
        metrics.put(url, otlp);
        return new Instance(builder.start(), url, log);
    }

    /** WildFly keeps running and reports the failed deployment; the application serves nothing. */
    @Override
    protected void assertRefused(Instance broken, String message) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!read(broken.log()).contains("WFLYSRV0025") && !read(broken.log()).contains("WFLYSRV0026")) {
            assertTrue(broken.process().isAlive() && System.nanoTime() < deadline, () -> "WildFly did not finish booting: " + read(broken.log()));
            Thread.sleep(200);
        }
        String log = read(broken.log());
        assertTrue(log.contains(message), log);
        assertTrue(log.contains("WFLYCTL0013") || log.contains("WFLYSRV0026"), "the deployment was not reported as failed: " + log);
        assertEquals(404, send(broken, "GET", "/stock/none").statusCode(), "the broken application answers");
    }

    private static int freeOffset() {
        for (int attempt = 0; attempt < 100; attempt++) {
            // Every port below 32768, where Linux does not hand out ephemeral ports: a port checked
            // free here could otherwise be taken by some client's connection before WildFly binds it.
            int offset = ThreadLocalRandom.current().nextInt(10_000, 22_000);
            boolean free = true;
            for (int port : PORTS) {
                free &= isFree(port + offset);
            }
            if (free) {
                return offset;
            }
        }
        throw new IllegalStateException("no free port offset for WildFly");
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port)) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            paths.forEach(source -> {
                try {
                    Path target = to.resolve(from.relativize(source).toString());
                    if (Files.isDirectory(source)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
