package dev.distlock.internal.cdi;

import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.LogCapture;
import dev.distlock.testing.Stock;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semantics 8: when the application produces its own {@code RedissonClient}, distlock uses it and
 * ignores {@code distlock.redis.*}. The application's client points at a Redis server of this
 * test's own; {@code distlock.redis.address} at the shared test Redis. The lock must show up in
 * the former only.
 */
class ApplicationRedissonClientTest {

    static volatile String applicationRedis;

    /** What both producers below return: a client of the application's own Redis. */
    static RedissonClient applicationClient() {
        Config config = new Config();
        config.useSingleServer().setAddress(applicationRedis).setConnectionMinimumIdleSize(2);
        return Redisson.create(config);
    }

    @ApplicationScoped
    public static class ApplicationClient {
        @Produces
        @ApplicationScoped
        RedissonClient client() {
            return applicationClient();
        }

        void close(@Disposes RedissonClient client) {
            client.shutdown();
        }
    }

    /** The same client produced {@code @Singleton}: no client proxy between it and distlock. */
    @ApplicationScoped
    public static class SingletonApplicationClient {
        @Produces
        @Singleton
        RedissonClient client() {
            return applicationClient();
        }

        void close(@Disposes RedissonClient client) {
            client.shutdown();
        }
    }

    /**
     * A normal-scoped client reaches distlock as a CDI client proxy, which cannot take distlock's
     * one-command release (main README, item 15): distlock says so once, and how to avoid it. A
     * {@code @Singleton} client is Redisson's own object, and nothing is said.
     */
    @Test
    void aProxiedClientIsReportedOnceAndASingletonIsNot() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        applicationRedis = "redis://127.0.0.1:" + port;
        Map<String, String> config = Map.of("distlock.key-prefix", TestRedis.uniquePrefix("app-client-scope"));
        try {
            for (Class<?> producer : List.of(ApplicationClient.class, SingletonApplicationClient.class)) {
                try (LogCapture log = LogCapture.start(); DistlockWeld weld = DistlockWeld.start(config, producer, Stock.class)) {
                    weld.bean(Stock.class).reserve("C-4", () -> null);
                    weld.bean(Stock.class).reserve("C-4", () -> null);
                    long told = log.records().stream().filter(r -> r.contains("reaches distlock as a")).count();
                    if (producer == ApplicationClient.class) {
                        assertEquals(1, told, "the @ApplicationScoped client should be reported once:\n" + log.all());
                        assertTrue(log.all().contains("@Singleton"), log.all());
                    } else {
                        assertEquals(0, told, "a @Singleton client is Redisson's own:\n" + log.all());
                    }
                }
            }
        } finally {
            server.close();
        }
    }

    @Test
    void applicationsOwnClientIsTheOneUsed() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        applicationRedis = "redis://127.0.0.1:" + port;
        String prefix = TestRedis.uniquePrefix("app-client");
        String key = prefix + ":lock:stock:C-3";
        Map<String, String> config = Map.of(
                "distlock.key-prefix", prefix,
                "distlock.redis.address", TestRedis.url());
        RedissonClient observer = TestRedis.newClient(c -> c.useSingleServer().setAddress(applicationRedis));
        try (DistlockWeld weld = DistlockWeld.start(config, ApplicationClient.class, Stock.class)) {
            boolean[] seen = weld.bean(Stock.class).reserve("C-3",
                    () -> new boolean[] {observer.getLock(key).isLocked(), Probe.exists(key)});
            assertTrue(seen[0], "locked in the application's Redis");
            assertFalse(seen[1], "not in the one distlock.redis.address names");
            assertFalse(observer.getLock(key).isLocked());
        } finally {
            observer.shutdown();
            server.close();
        }
    }
}
