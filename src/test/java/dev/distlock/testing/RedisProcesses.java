package dev.distlock.testing;

import redis.embedded.core.ExecutableProvider;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * redis-server processes with arguments of the test's choosing (replicas, Sentinels, cluster
 * nodes), each on a free port, for tests of Redis topologies. The binary is the one the Maven
 * artifact {@code com.github.codemonstur:embedded-redis} carries (what {@link TestRedis#startOwnServer}
 * runs), extracted once per JVM. Everything lives in a temporary directory of its own; {@link #close()}
 * kills every process started here and deletes the directory (a shutdown hook does the same if the
 * test never gets there).
 */
public final class RedisProcesses implements AutoCloseable {

    private static final int START_ATTEMPTS = 5;
    private static final long START_TIMEOUT_MILLIS = 10_000;

    private static Path binary;

    private final Path dir;
    private final List<Node> nodes = new CopyOnWriteArrayList<>();
    private final Thread hook;

    public RedisProcesses(String name) {
        try {
            dir = Files.createTempDirectory("distlock-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        hook = new Thread(this::stopAll, "redis-processes-" + name);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The redis-server binary of the embedded-redis artifact for this platform. */
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

    public Path dir() {
        return dir;
    }

    /**
     * A redis-server on a free port of 127.0.0.1, without persistence, working directory of its
     * own (so relative files such as {@code --cluster-config-file nodes.conf} stay apart), with
     * {@code arguments} after the defaults. Returns once it answers PING.
     */
    public Node server(String... arguments) {
        return start(port -> {
            Path home = dir.resolve("node-" + port);
            Files.createDirectories(home);
            List<String> command = new ArrayList<>(List.of(binary().toString(),
                    "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--dir", home.toString()));
            command.addAll(List.of(arguments));
            return command;
        });
    }

    /**
     * A Sentinel on a free port: {@code lines} (e.g. {@code sentinel monitor ...}) go into a
     * writable configuration file of its own after {@code port}, {@code bind} and {@code dir}.
     */
    public Node sentinel(List<String> lines) {
        return start(port -> {
            Path home = dir.resolve("sentinel-" + port);
            Files.createDirectories(home);
            List<String> config = new ArrayList<>(List.of("port " + port, "bind 127.0.0.1", "dir " + home,
                    "protected-mode no"));
            config.addAll(lines);
            Path file = home.resolve("sentinel.conf");
            Files.write(file, config);
            return List.of(binary().toString(), file.toString(), "--sentinel");
        });
    }

    @FunctionalInterface
    private interface CommandLine {
        List<String> forPort(int port) throws IOException;
    }

    private Node start(CommandLine commandLine) {
        IOException lastFailure = null;
        String lastLog = "";
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            int port = TestRedis.freePort();
            try {
                List<String> command = commandLine.forPort(port);
                Path log = dir.resolve("redis-" + port + ".log");
                Process process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(log.toFile()).start();
                Node node = new Node(port, process, log);
                nodes.add(node);
                if (awaitPing(node)) {
                    return node;
                }
                lastLog = node.log();
                node.kill();
                nodes.remove(node);
                // Another process may have taken the port between freePort() and the bind: try another.
            } catch (IOException e) {
                lastFailure = e;
            }
        }
        throw new IllegalStateException("redis-server did not start in " + START_ATTEMPTS + " attempts; last log:\n" + lastLog,
                lastFailure);
    }

    private static boolean awaitPing(Node node) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (!node.process.isAlive()) {
                return false;
            }
            try {
                // Ours, not a server someone else started on the port between freePort() and our bind.
                if ("PONG".equals(Resp.call(node.port, "PING"))
                        && Long.toString(node.pid()).equals(node.info("server", "process_id"))) {
                    return true;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            sleep(20);
        }
        return false;
    }

    /** Polls {@code condition} every 50 ms until it holds; false if it does not within {@code timeoutMillis}. */
    public static boolean await(long timeoutMillis, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return true;
                }
            } catch (RuntimeException notYet) {
                // e.g. a node still starting; try again
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            sleep(50);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException exiting) {
            // the hook is running or has run
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // a temporary directory left behind is harmless
        }
    }

    private void stopAll() {
        for (Node node : nodes) {
            node.kill();
        }
    }

    /** One redis-server process. */
    public static final class Node {
        private final int port;
        private final Process process;
        private final Path log;

        private Node(int port, Process process, Path log) {
            this.port = port;
            this.process = process;
            this.log = log;
        }

        public int port() {
            return port;
        }

        public String url() {
            return "redis://127.0.0.1:" + port;
        }

        public long pid() {
            return process.pid();
        }

        public boolean alive() {
            return process.isAlive();
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

        /** SIGKILL, as a crashed machine would go; waits until the process is gone. */
        public void kill() {
            process.destroyForcibly();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("redis-server " + port + " (pid " + process.pid() + ") survived SIGKILL");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** What the process printed, for failure messages. */
        public String log() {
            try {
                return Files.readString(log);
            } catch (IOException e) {
                return "(no log: " + e + ")";
            }
        }

        @Override
        public String toString() {
            return "redis-server 127.0.0.1:" + port + " (pid " + process.pid() + ")";
        }
    }
}
