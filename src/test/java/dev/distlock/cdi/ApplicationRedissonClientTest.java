package dev.distlock.cdi;

import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.embedded.RedisServer;

import java.util.Map;
import java.util.concurrent.Callable;

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

    @ApplicationScoped
    public static class ApplicationClient {
        @Produces
        @ApplicationScoped
        RedissonClient client() {
            Config config = new Config();
            config.useSingleServer().setAddress(applicationRedis).setConnectionMinimumIdleSize(2);
            return Redisson.create(config);
        }

        void close(@Disposes RedissonClient client) {
            client.shutdown();
        }
    }

    @ApplicationScoped
    public static class Stock {
        @Locked("stock:{sku}")
        public <T> T reserve(String sku, Callable<T> body) throws Exception {
            return body.call();
        }
    }

    @Test
    void applicationsOwnClientIsTheOneUsed() throws Exception {
        int port = TestRedis.freePort();
        RedisServer server = TestRedis.startOwnServer(port);
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
            server.stop();
        }
    }
}
