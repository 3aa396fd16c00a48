package dev.distlock.faults;

import dev.distlock.testing.Resp;

import redis.embedded.core.ExecutableProvider;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server process of the test's own, started from the binary in the
 * {@code com.github.codemonstur:embedded-redis} artifact, that the test can kill with SIGKILL
 * ({@link #kill()}), unlike {@code RedisServer.stop()}, which asks it to shut down. No persistence:
 * a server started again on the same port starts empty, as a restarted Redis without its data.
 * Close it in {@code finally}.
 */
final class RedisProcess implements AutoCloseable {

    private static final long READY_TIMEOUT_MILLIS = 10_000;
    private static File binary;

    final int port;
    private final Process process;
    private final Path log;

    private RedisProcess(int port, Process process, Path log) {
        this.port = port;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts a server on {@code port} and returns once it answers PING.
     *
     * @param settings more configuration, as redis-server takes it on its command line
     *                 (e.g. {@code "--slowlog-log-slower-than", "0"})
     */
    static RedisProcess start(int port, String... settings) {
        Path log = null;
        Process process = null;
        try {
            log = Files.createTempFile("distlock-faults-redis-" + port + "-", ".log");
            List<String> command = new ArrayList<>(List.of(binary().getAbsolutePath(),
                    "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--protected-mode", "no"));
            command.addAll(List.of(settings));
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            RedisProcess server = new RedisProcess(port, process, log);
            server.awaitReady();
            return server;
        } catch (IOException | RuntimeException e) {
            if (process != null) {
                process.destroyForcibly();
                waitFor(process);
            }
            String output = "";
            try {
                output = log == null ? "" : Files.readString(log);
            } catch (IOException ignored) {
                // nothing to add
            }
            throw new IllegalStateException("redis-server did not start on port " + port + ": " + e + "\n" + output, e);
        }
    }

    private static synchronized File binary() throws IOException {
        if (binary == null) {
            binary = ExecutableProvider.newJarResourceProvider().get();
        }
        return binary;
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited with " + process.exitValue());
            }
            try (Resp resp = Resp.connect(port, 500)) {
                if ("PONG".equals(resp.command("PING"))) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet, or still loading
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server did not answer PING within " + READY_TIMEOUT_MILLIS + " ms");
            }
            sleep(20);
        }
    }

    long pid() {
        return process.pid();
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** SIGKILL: the server dies at once, with its data, as a crashed host would. Waits until it is gone. */
    void kill() {
        process.destroyForcibly();
        waitFor(process);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void waitFor(Process process) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (!process.waitFor(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("redis-server " + process.pid() + " still alive 10 s after SIGKILL");
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
