package dev.distlock.example.shop.launcher;

import dev.distlock.testkit.Directories;
import dev.distlock.testkit.Processes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One Payara Micro process serving the shop: {@code java -jar payara-micro.jar --deploy shop.war
 * --port N --nocluster}, its output in a log file, its configuration as system properties.
 */
public final class PayaraNode implements AutoCloseable {

    /**
     * For the tests: two of these share two cores with the test and each other. The C1 compiler
     * alone halves the CPU a start costs (13 s instead of 30 s measured here), and the tests check
     * what happens, not how fast.
     */
    public static final List<String> SMALL_MACHINE = List.of("-Xms256m", "-Xmx768m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xss512k");

    /** For measurements: the JDK's own JIT (C2 after C1) and collector (G1), as a production server runs. */
    public static final List<String> PRODUCTION = List.of("-Xms512m", "-Xmx1g");
    private static final Duration POLL = Duration.ofMillis(500);
    /** What Payara Micro logs once it has booted and deployed: "Payara Micro 6.2025.10 (build 42) ready in 23,607 (ms)". */
    private static final String READY_MESSAGE = ") ready in ";
    /** What Payara logs when the WAR failed to deploy; it still says "ready", and then serves nothing. */
    private static final String DEPLOYMENT_FAILED = "Exception while loading the app";
    private static final long STOP_WAIT_SECONDS = 15;
    /** The {@code java} of the JDK running this launcher: the servers' by default. */
    public static final Path THIS_JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    private final String name;
    private final int port;
    private final Path log;
    private final Process process;

    private PayaraNode(String name, int port, Path log, Process process) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /**
     * Starts the process and returns at once; {@link #awaitReady} waits for it.
     *
     * @param java       the {@code java} executable to run it with, e.g. {@link #THIS_JAVA} (Payara Micro 7 needs a JDK 21+)
     * @param jvmOptions {@link #SMALL_MACHINE}, {@link #PRODUCTION}, or others
     * @param properties the shop's configuration, passed as {@code -Dkey=value}
     */
    public static PayaraNode start(String name, int port, Path java, Path payaraJar, Path war, Path workDir, Path agentJar,
                                   List<String> jvmOptions, Map<String, String> properties) {
        try {
            // A root directory Payara used before holds that run's deployment, which it would
            // boot first and then replace: start from nothing.
            Path root = workDir.resolve(name);
            Directories.delete(root);
            Files.createDirectories(root);
            Path log = workDir.resolve(name + ".log");
            List<String> command = new ArrayList<>();
            command.add(java.toString());
            command.addAll(jvmOptions);
            command.add("-javaagent:" + agentJar + "=" + ProcessHandle.current().pid());
            new TreeMap<>(properties).forEach((key, value) -> command.add("-D" + key + "=" + value));
            command.addAll(List.of("-jar", payaraJar.toString(),
                    "--deploy", war.toString(), "--contextroot", "/",
                    "--port", Integer.toString(port), "--nocluster", "--nohazelcast", "--disablephonehome",
                    "--rootdir", root.toString(), "--name", name));
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            return new PayaraNode(name, port, log, process);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Payara Micro " + name, e);
        }
    }

    /**
     * Waits until Payara Micro says it is ready and the shop answers {@code GET /api/inventory} with
     * 200. (Payara answers before it says so while it is still starting.)
     *
     * @throws IllegalStateException with the end of the log if the process exits or the time runs out
     */
    public void awaitReady(Duration timeout) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest probe = HttpRequest.newBuilder(URI.create(url() + "/api/inventory")).timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + " before it answered; log "
                        + log + ":\n" + logTail(200));
            }
            try {
                if (saysReady()) {
                    if (logSays(DEPLOYMENT_FAILED)) {
                        throw new IllegalStateException(name + " started, but the shop failed to deploy; log " + log + ":\n"
                                + logTail(200));
                    }
                    if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return;
                    }
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name + " did not answer " + probe.uri() + " within " + timeout + "; log "
                        + log + ":\n" + logTail(200));
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private boolean saysReady() throws IOException {
        return logSays(READY_MESSAGE);
    }

    private boolean logSays(String text) throws IOException {
        // Latin-1 never fails to decode, whatever the log holds.
        try (var lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
            return lines.anyMatch(line -> line.contains(text));
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:port}, without a trailing slash. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public Path log() {
        return log;
    }

    /** The server's process id, e.g. to read its CPU time. */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The last {@code lines} lines of the log. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** Freezes the whole JVM (SIGSTOP), as a long GC pause or a stopped VM would: its threads, watchdog included, stand still. */
    public void pause() {
        signal("STOP");
    }

    /** Lets a paused JVM run on (SIGCONT). */
    public void resume() {
        signal("CONT");
    }

    private void signal(String signal) {
        Processes.signal(process.pid(), signal);
    }

    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(STOP_WAIT_SECONDS));
    }
}
