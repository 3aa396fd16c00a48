package dev.distlock.bench;

import dev.distlock.testkit.TestRedis;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The Redis the benchmarks use: system property {@code distlock.bench.redis.url} (set by the
 * runner for forked JVMs), else {@code DISTLOCK_BENCH_REDIS_URL}, else the test kit's redis-server
 * of this JVM ({@link TestRedis#embedded()}), started on a free loopback port and killed when the JVM exits.
 */
public final class BenchRedis {

    public static final String PROPERTY = "distlock.bench.redis.url";
    public static final String VARIABLE = "DISTLOCK_BENCH_REDIS_URL";

    private static String url;
    private static String origin;

    private BenchRedis() {
    }

    public static synchronized String url() {
        if (url == null) {
            start();
        }
        return url;
    }

    public static synchronized String origin() {
        url();
        return origin;
    }

    public static RedissonClient newClient(String address, int poolSize) {
        return Redisson.create(config(address, poolSize));
    }

    /** The client configuration every benchmark uses: one server, {@code poolSize} connections. */
    public static Config config(String address, int poolSize) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(address)
                .setConnectionPoolSize(poolSize)
                .setConnectionMinimumIdleSize(Math.min(poolSize, 8))
                .setSubscriptionConnectionMinimumIdleSize(1);
        return config;
    }

    public static RedissonClient newClient() {
        return newClient(url(), 64);
    }

    private static void start() {
        String property = System.getProperty(PROPERTY);
        if (property != null && !property.isBlank()) {
            url = property.strip();
            origin = "system property " + PROPERTY;
            return;
        }
        String variable = System.getenv(VARIABLE);
        if (variable != null && !variable.isBlank()) {
            url = variable.strip();
            origin = "environment " + VARIABLE;
            return;
        }
        url = TestRedis.embedded();
        origin = "embedded redis-server (the com.github.codemonstur:embedded-redis binary) on " + url;
    }
}
