package dev.distlock.testkit;

import redis.embedded.core.ExecutableProvider;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One redis-server process of the caller's own, from the binary the Maven artifact
 * {@code com.github.codemonstur:embedded-redis} carries, on 127.0.0.1, without persistence. It can
 * be killed with SIGKILL ({@link #kill()}, as a crashed host goes) and started again on the same
 * port with the same settings ({@link #start()}): the new server starts empty, as a restarted Redis
 * without its data. Every Redis the tests, the shop's launcher and the benchmarks start is one of
 * these. Close it in {@code finally}; a shutdown hook kills it if the JVM exits first.
 */
public final class RedisProcess implements AutoCloseable {

    private static final long READY_TIMEOUT_MILLIS = 10_000;
    private static final int FREE_PORT_ATTEMPTS = 5;

    private static Path binary;

    private final int port;
    private final List<String> command;
    private final Path log;
    private final Thread hook;
    private Process process;

    private RedisProcess(int port, List<String> command, Path log) {
        this.port = port;
        this.command = command;
        this.log = log;
        this.hook = new Thread(this::kill, "redis-process-" + port);
    }

    /**
     * Starts a server on {@code port} and returns once it answers.
     *
     * @param settings more configuration as redis-server takes it on its command line
     *                 (e.g. {@code "--slowlog-log-slower-than", "0"})
     */
    public static RedisProcess start(int port, String... settings) {
        List<String> command = new ArrayList<>(List.of(binary().toString(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--protected-mode", "no"));
        command.addAll(List.of(settings));
        return start(port, command, null);
    }

    /** A server on a port nobody listens on, trying another port if one is taken between the pick and the bind. */
    public static RedisProcess startOnFreePort(String... settings) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
            try {
                return start(Ports.free(), settings);
            } catch (IllegalStateException portTaken) {
                last = portTaken;
            }
        }
        throw last;
    }

    /**
     * A server with a command line of the caller's (a Sentinel's configuration file, say): {@code
     * command} must make it listen on {@code port}. Its output goes to a file in {@code logDirectory}
     * (a temporary file when null).
     */
    public static RedisProcess start(int port, List<String> command, Path logDirectory) {
        Path log;
        try {
            log = logDirectory == null
                    ? Files.createTempFile("distlock-redis-" + port + "-", ".log")
                    : logDirectory.resolve("redis-" + port + ".log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RedisProcess redis = new RedisProcess(port, List.copyOf(command), log);
        Runtime.getRuntime().addShutdownHook(redis.hook);
        try {
            redis.start();
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
        return redis;
    }

    /** The redis-server binary of the embedded-redis artifact for this platform, extracted once per JVM. */
    public static synchronized Path binary() {
        if (binary == null) {
            try {
                binary = ExecutableProvider.newJarResourceProvider().get().toPath();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot extract redis-server from the embedded-redis artifact", e);
            }
        }
        return binary;
    }

    /** Starts the server again on its port, empty, if it is not running; returns once it answers. */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command.get(0), e);
        }
        if (!awaitReady()) {
            kill();
            throw new IllegalStateException("redis-server did not start on port " + port
                    + " within " + READY_TIMEOUT_MILLIS + " ms (the port may be taken); its output:\n" + log());
        }
    }

    private boolean awaitReady() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                return false;
            }
            try {
                // Ours, not a server someone else started on the port between the pick and our bind.
                if (Long.toString(process.pid()).equals(info("server", "process_id"))) {
                    return true;
                }
            } catch (Resp.ErrorReply authenticationRequired) {
                // a server that wants a password answers on its own port: it is up, and the pid
                // check is the caller's to make with its credentials
                return authenticationRequired.getMessage().startsWith("NOAUTH") && process.isAlive();
            } catch (RuntimeException notYet) {
                // not listening yet, or still loading
            }
            Waits.sleep(20);
        }
        return false;
    }

    /** SIGKILL: the server dies at once with its data, as on a crashed host. Waits until it is gone. */
    public synchronized void kill() {
        if (process != null) {
            Processes.kill(process);
        }
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:port}. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    public synchronized long pid() {
        return process.pid();
    }

    public synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    /** One command on a connection of its own. */
    public Object call(String... command) {
        return Resp.call(port, command);
    }

    /** A field of {@code INFO section}, e.g. {@code info("replication", "master_link_status")}. */
    public String info(String section, String field) {
        return infoField(call("INFO", section).toString(), field);
    }

    /** {@code field:value} lines of INFO or CLUSTER INFO: the value, or {@code null}. */
    public static String infoField(String text, String field) {
        for (String line : text.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).strip();
            }
        }
        return null;
    }

    /** What the process printed (every run on this port), for failure messages. */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Kills the server and deletes its log. */
    @Override
    public void close() {
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException exiting) {
            // the hook is running or has run
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException ignored) {
            // a log left behind is harmless
        }
    }

    @Override
    public String toString() {
        return "redis-server 127.0.0.1:" + port + (process == null ? "" : " (pid " + process.pid() + ")");
    }
}
