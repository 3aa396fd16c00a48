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

    /**
     * A boot that writes nothing to its log for this long, before the server says it is ready, is
     * stalled: a Payara Micro 7 on JDK 25 once stood still for five minutes while starting its
     * Hazelcast instance, before any application was deployed. The longest silence of a healthy boot
     * seen here is a few seconds (the WAR's deployment on a loaded machine).
     */
    private static final Duration BOOT_STALL = Duration.ofSeconds(90);

    private final String name;
    private final int port;
    private final Path log;
    private final Path root;
    private final List<String> command;
    private volatile Process process;
    private boolean restarted;

    private PayaraNode(String name, int port, Path log, Path root, List<String> command, Process process) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.root = root;
        this.command = List.copyOf(command);
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
            return new PayaraNode(name, port, log, root, command, launch(command, log));
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Payara Micro " + name, e);
        }
    }

    private static Process launch(List<String> command, Path log) throws IOException {
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    /**
     * Waits until Payara Micro says it is ready and the shop answers {@code GET /api/inventory} with
     * 200. (Payara answers before it says so while it is still starting.)
     *
     * @throws IllegalStateException with the end of the log if the process exits or the time runs out
     */
    public void awaitReady(Duration timeout) throws InterruptedException {
        awaitReady(timeout, BOOT_STALL);
    }

    /** As {@link #awaitReady(Duration)}, a boot being stalled after {@code stall} without a log line. */
    void awaitReady(Duration timeout, Duration stall) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest probe = HttpRequest.newBuilder(URI.create(url() + "/api/inventory")).timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        long logSize = -1;
        long logGrewAt = System.nanoTime();
        while (true) {
            long size = logSize();
            if (size != logSize) {
                logSize = size;
                logGrewAt = System.nanoTime();
            } else if (System.nanoTime() - logGrewAt > stall.toNanos() && !saysReadyQuietly()) {
                restartAfterStall(stall);
                logSize = -1;
                logGrewAt = System.nanoTime();
                deadline = System.nanoTime() + timeout.toNanos();
            }
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

    private boolean saysReadyQuietly() {
        try {
            return saysReady();
        } catch (IOException e) {
            return false;
        }
    }

    private long logSize() {
        try {
            return Files.size(log);
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * A boot whose log stood still for {@code stall} before the server was ready: its threads
     * are dumped beside the log (what it waited for is the evidence to keep), the process is stopped,
     * and it is started once more from nothing. A second stall fails the start with the dump's path.
     * Only before the server says it is ready: a server that stops answering later is what the
     * tests are about, and is never restarted here.
     */
    private void restartAfterStall(Duration stall) throws InterruptedException {
        Path dump = log.resolveSibling(name + "-stalled-" + (restarted ? 2 : 1) + ".threads");
        String threads = Processes.threadDump(process.pid(), Path.of(command.get(0)));
        try {
            Files.writeString(dump, threads);
        } catch (IOException e) {
            dump = null;
        }
        String silent = "its log silent for " + stall.toMillis() + " ms before it was ready";
        if (restarted) {
            throw new IllegalStateException(name + " stalled twice while booting (" + silent + "); threads " + dump
                    + ", log " + log + ":\n" + logTail(40));
        }
        restarted = true;
        System.out.println("[e2e] " + name + " stalled while booting (" + silent + "), started again; its threads: " + dump
                + "\n" + logTail(5));
        Processes.stop(process, Duration.ofSeconds(STOP_WAIT_SECONDS));
        try {
            Files.move(log, log.resolveSibling(name + "-stalled-1.log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Directories.delete(root);
            Files.createDirectories(root);
            process = launch(command, log);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Payara Micro " + name + " again", e);
        }
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

    /** Kills the JVM (SIGKILL), as a crashed host would: no shutdown hook runs, nothing is given back; waits until it is gone. */
    public void kill() {
        Processes.kill(process);
    }

    private void signal(String signal) {
        Processes.signal(process.pid(), signal);
    }

    @Override
    public void close() {
        Processes.stop(process, Duration.ofSeconds(STOP_WAIT_SECONDS));
    }
}
