package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * redis-server processes with arguments of the test's choosing (replicas, Sentinels, cluster
 * nodes), each a {@link RedisProcess} on a free port, for tests of Redis topologies. Everything
 * lives in a temporary directory of its own; {@link #close()} kills every process started here and
 * deletes the directory.
 */
public final class RedisProcesses implements AutoCloseable {

    private static final int START_ATTEMPTS = 5;

    private final Path dir;
    private final List<RedisProcess> nodes = new CopyOnWriteArrayList<>();

    public RedisProcesses(String name) {
        try {
            dir = Files.createTempDirectory("distlock-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path dir() {
        return dir;
    }

    /**
     * A redis-server on a free port of 127.0.0.1, without persistence, working directory of its
     * own (so relative files such as {@code --cluster-config-file nodes.conf} stay apart), with
     * {@code arguments} after the defaults. Returns once it answers.
     */
    public RedisProcess server(String... arguments) {
        return start(port -> {
            Path home = dir.resolve("node-" + port);
            Files.createDirectories(home);
            List<String> command = new ArrayList<>(List.of(RedisProcess.binary().toString(),
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
    public RedisProcess sentinel(List<String> lines) {
        return start(port -> {
            Path home = dir.resolve("sentinel-" + port);
            Files.createDirectories(home);
            List<String> config = new ArrayList<>(List.of("port " + port, "bind 127.0.0.1", "dir " + home,
                    "protected-mode no"));
            config.addAll(lines);
            Path file = home.resolve("sentinel.conf");
            Files.write(file, config);
            return List.of(RedisProcess.binary().toString(), file.toString(), "--sentinel");
        });
    }

    @FunctionalInterface
    private interface CommandLine {
        List<String> forPort(int port) throws IOException;
    }

    private RedisProcess start(CommandLine commandLine) {
        RuntimeException last = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            int port = Ports.free();
            try {
                RedisProcess node = RedisProcess.start(port, commandLine.forPort(port), dir);
                nodes.add(node);
                return node;
            } catch (IOException e) {
                last = new UncheckedIOException(e);
            } catch (IllegalStateException portTaken) {
                // another process may have taken the port between the pick and the bind: try another
                last = portTaken;
            }
        }
        throw new IllegalStateException("redis-server did not start in " + START_ATTEMPTS + " attempts", last);
    }

    /** Polls {@code condition} until it holds; false if it does not within {@code timeoutMillis}. See {@link Waits#until}. */
    public static boolean await(long timeoutMillis, BooleanSupplier condition) {
        return Waits.until(timeoutMillis, condition);
    }

    @Override
    public void close() {
        for (RedisProcess node : nodes) {
            node.close();
        }
        Directories.deleteQuietly(dir);
    }
}
