package dev.distlock.testkit;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

import java.net.URI;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The Redis the tests talk to, chosen once per JVM: {@code DISTLOCK_TEST_REDIS_URL} if set, else a
 * Testcontainers Redis when a Docker engine answers, else {@link #embedded()}. Never a mock: races
 * only show against a real server.
 */
public final class TestRedis {

    public static final String URL_VARIABLE = "DISTLOCK_TEST_REDIS_URL";

    private static String url;
    private static String origin;
    private static RedissonClient shared;
    private static RedisProcess embedded;

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
        url = embedded();
        origin = "embedded redis-server on port " + URI.create(url).getPort();
    }

    /**
     * The address of a redis-server of this JVM's own (the embedded-redis artifact's binary, on a
     * free port), started on first use and killed when the JVM exits.
     */
    public static synchronized String embedded() {
        if (embedded == null) {
            embedded = RedisProcess.startOnFreePort();
        }
        return embedded.url();
    }

    private static boolean dockerAnswers() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable noDocker) {
            return false;
        }
    }
}
