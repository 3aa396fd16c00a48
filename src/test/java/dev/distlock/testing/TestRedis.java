package dev.distlock.testing;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;
import redis.embedded.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The Redis the tests talk to, chosen once per JVM: {@code DISTLOCK_TEST_REDIS_URL} if set, else a
 * Testcontainers Redis when a Docker engine answers, else a Redis server binary from a Maven
 * artifact started on a free port. Never a mock: races only show against a real server.
 */
public final class TestRedis {

    public static final String URL_VARIABLE = "DISTLOCK_TEST_REDIS_URL";

    private static String url;
    private static String origin;
    private static RedissonClient shared;

    private TestRedis() {
    }

    /** The address, e.g. {@code redis://127.0.0.1:41234}; starts a server on first use. */
    public static synchronized String url() {
        if (url == null) {
            start();
        }
        return url;
    }

    /** Where {@link #url()} came from: environment, testcontainers or embedded. */
    public static synchronized String origin() {
        url();
        return origin;
    }

    /**
     * One client for every test of this JVM that needs no settings of its own; shut down when
     * the JVM exits. Tests keep apart through their key prefixes, not through clients.
     */
    public static synchronized RedissonClient sharedClient() {
        if (shared == null) {
            RedissonClient client = newClient();
            Runtime.getRuntime().addShutdownHook(new Thread(client::shutdown));
            shared = client;
        }
        return shared;
    }

    /** A new client; the caller shuts it down. */
    public static RedissonClient newClient() {
        return newClient(config -> { });
    }

    public static RedissonClient newClient(Consumer<Config> customizer) {
        Config config = new Config();
        config.useSingleServer().setAddress(url()).setConnectionMinimumIdleSize(2).setSubscriptionConnectionMinimumIdleSize(1);
        customizer.accept(config);
        return Redisson.create(config);
    }

    /** A key prefix no other test uses, so tests sharing one Redis never meet. */
    public static String uniquePrefix(String test) {
        return "t-" + test + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** A port nobody listens on right now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A Redis server of the test's own, on a free port, for tests that stop or restart it. */
    public static RedisServer startOwnServer(int port) {
        try {
            RedisServer server = RedisServer.newRedisServer()
                    .port(port)
                    .bind("127.0.0.1")
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .build();
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start an embedded Redis on port " + port, e);
        }
    }

    private static void start() {
        String fromEnvironment = System.getenv(URL_VARIABLE);
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            url = fromEnvironment.strip();
            origin = "environment " + URL_VARIABLE;
            return;
        }
        if (dockerAnswers()) {
            GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse("redis:7-alpine")).withExposedPorts(6379);
            container.start();
            Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
            url = "redis://" + container.getHost() + ":" + container.getMappedPort(6379);
            origin = "testcontainers";
            return;
        }
        int port = freePort();
        RedisServer server = startOwnServer(port);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (IOException ignored) {
                // the JVM is exiting; the process dies with it
            }
        }));
        url = "redis://127.0.0.1:" + port;
        origin = "embedded redis-server on port " + port;
    }

    private static boolean dockerAnswers() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable noDocker) {
            return false;
        }
    }
}
