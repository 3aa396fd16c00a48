package dev.distlock.internal.cdi;



import dev.distlock.LockServiceUnavailableException;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.Stock;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semantics 8, without an application {@code RedissonClient}: distlock builds its own from
 * {@code distlock.redis.*}, lazily, so the application deploys while Redis is down; locked calls
 * fail fast until Redis answers; the client is shut down with the container.
 */
class RedisConnectionTest {

    /** How often distlock tries again to connect while Redis is down (its RedisConnection). */
    private static final long RETRY_INTERVAL_MILLIS = 1_000;

    @Test
    void deploysWhileRedisIsDownFailsFastAndRecoversWhenRedisIsBack() throws Exception {
        int port = Ports.free();
        String prefix = TestRedis.uniquePrefix("redis-down");
        Map<String, String> config = Map.of(
                "distlock.key-prefix", prefix,
                "distlock.redis.address", "redis://127.0.0.1:" + port);
        Probe.client(); // loads Redisson and Netty, which a cold JVM on a busy machine takes seconds for
        try (DistlockWeld weld = DistlockWeld.start(config, Stock.class)) {
            Stock stock = weld.bean(Stock.class);

            long start = System.nanoTime();
            LockServiceUnavailableException down = assertThrows(LockServiceUnavailableException.class,
                    () -> stock.reserve("A-1", () -> "ran"));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < 4_000, "fails fast, not after timeouts: " + millis + " ms");
            assertTrue(down.getMessage().contains("cannot be reached") && down.getMessage().contains("127.0.0.1:" + port),
                    down.getMessage());

            RedisProcess server = RedisProcess.start(port);
            try {
                Thread.sleep(RETRY_INTERVAL_MILLIS + 500);
                String key = prefix + ":lock:stock:A-1";
                RedissonClient own = weld.bean(LockEngine.class).redisClient().get();
                assertTrue(stock.reserve("A-1", () -> own.getLock(key).isLocked()), "locked in the Redis that came up");
                assertFalse(own.getLock(key).isLocked());
            } finally {
                server.close();
            }
        }
    }

    @Test
    void clientBuiltByDistlockIsShutDownWithTheContainer() throws Exception {
        Map<String, String> config = Map.of(
                "distlock.key-prefix", TestRedis.uniquePrefix("own-client"),
                "distlock.redis.address", TestRedis.url());
        RedissonClient built;
        try (DistlockWeld weld = DistlockWeld.start(config, Stock.class)) {
            weld.bean(Stock.class).reserve("B-1", () -> "ran");
            built = weld.bean(LockEngine.class).redisClient().get();
            assertFalse(built.isShutdown());
        }
        assertTrue(built.isShutdown(), "shut down on undeploy");
    }
}
