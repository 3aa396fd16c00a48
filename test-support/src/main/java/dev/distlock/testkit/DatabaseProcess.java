package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * One database server process of the test kit's own ({@link EmbeddedPostgres}, {@link EmbeddedMariaDb})
 * on a free port of 127.0.0.1, its data in a temporary directory. It is stopped, and its directory
 * deleted, by {@link #close()} or, if the JVM exits first, by a shutdown hook.
 */
public final class DatabaseProcess implements AutoCloseable {

    private static final long READY_TIMEOUT_MILLIS = 120_000;
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final int FREE_PORT_ATTEMPTS = 5;

    /** How one kind of server starts and stops. */
    record Kind(String name, String readyLine, List<String> portTakenLines, String stopSignal) {
    }

    private final Kind kind;
    private final Path home;
    private final Path log;
    private final Thread hook;
    private int port;
    private String jdbcUrl;
    private Process process;

    private DatabaseProcess(Kind kind, Path home) {
        this.kind = kind;
        this.home = home;
        this.log = home.getParent().resolve(home.getFileName() + ".log");
        this.hook = new Thread(this::stop, kind.name().toLowerCase() + "-process");
    }

    /**
     * Starts {@code command} for a free port until one attempt reaches its ready line; another port
     * is tried when the one picked was taken before the server bound it.
     *
     * @param home    the server's data, deleted when it stops
     * @param command the command line for a port
     * @param jdbcUrl the URL for a port
     */
    static DatabaseProcess start(Kind kind, Path home, IntFunction<List<String>> command, IntFunction<String> jdbcUrl) {
        DatabaseProcess server = new DatabaseProcess(kind, home);
        Runtime.getRuntime().addShutdownHook(server.hook);
        try {
            for (int attempt = 1; ; attempt++) {
                int port = Ports.free();
                if (server.startOn(port, command.apply(port))) {
                    server.port = port;
                    server.jdbcUrl = jdbcUrl.apply(port);
                    return server;
                }
                if (attempt == FREE_PORT_ATTEMPTS || !server.portWasTaken()) {
                    throw new IllegalStateException(kind.name() + " did not start on port " + port + " within "
                            + READY_TIMEOUT_MILLIS + " ms; its output:\n" + server.log());
                }
            }
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * Runs a set-up step ({@code initdb}, {@code mariadb-install-db}) to its end.
     *
     * @throws IllegalStateException with its output if it fails or does not end within the timeout
     */
    static void runSetup(List<String> command, Path directory) {
        try {
            Path output = Files.createTempFile("distlock-database-setup-", ".log");
            try {
                Process step = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                        .redirectOutput(output.toFile()).start();
                boolean ended = step.waitFor(READY_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
                if (!ended || step.exitValue() != 0) {
                    Processes.kill(step);
                    throw new IllegalStateException((ended ? "failed (exit " + step.exitValue() + ")" : "did not end within "
                            + READY_TIMEOUT_MILLIS + " ms") + ": " + String.join(" ", command) + "\n" + Files.readString(output));
                }
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }

    private boolean startOn(int port, List<String> command) {
        try {
            Files.deleteIfExists(log);
            process = new ProcessBuilder(command).directory(home.getParent().toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command, e);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            boolean alive = process.isAlive();
            if (log().contains(kind.readyLine())) {
                return alive;
            }
            if (!alive) {
                return false;
            }
            Waits.sleep(50);
        }
        Processes.kill(process);
        return false;
    }

    private boolean portWasTaken() {
        String output = log();
        return kind.portTakenLines().stream().anyMatch(output::contains);
    }

    /** The JDBC URL, credentials included. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    public int port() {
        return port;
    }

    /** The server's main process (PostgreSQL's postmaster; its sessions are its children). */
    public long pid() {
        return process.pid();
    }

    /** What the server printed on its last start, for failure messages. */
    public String log() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Stops the server (its own clean shutdown first, SIGKILL after a grace) and deletes its data. */
    private synchronized void stop() {
        if (process != null && process.isAlive()) {
            try {
                Processes.signal(process.pid(), kind.stopSignal());
                process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException alreadyGone) {
                // it ended between the check and the signal
            }
            Processes.kill(process);
        }
        Directories.deleteQuietly(home);
        try {
            Files.deleteIfExists(log);
        } catch (IOException ignored) {
            // a log left behind is harmless
        }
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException exiting) {
            // the hook is running or has run
        }
    }

    @Override
    public String toString() {
        return kind.name() + " 127.0.0.1:" + port + (process == null ? "" : " (pid " + process.pid() + ")");
    }
}
