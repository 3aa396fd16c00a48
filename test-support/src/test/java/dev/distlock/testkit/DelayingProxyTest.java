package dev.distlock.testkit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The delaying proxy in front of a real Redis: a round trip takes at least twice the one-way delay
 * (only lower bounds are asserted: the machine may be slow, never faster than the proxy allows),
 * and bytes arrive whole and in order, a large value and a long pipeline alike.
 */
@Timeout(60)
class DelayingProxyTest {

    private static final Duration ONE_WAY = Duration.ofMillis(1);
    private static RedisProcess redis;
    private static DelayingProxy proxy;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start(Ports.free());
        proxy = DelayingProxy.start("127.0.0.1", redis.port(), ONE_WAY);
    }

    @AfterAll
    static void stop() {
        proxy.close();
        redis.close();
    }

    @Test
    void aRoundTripTakesAtLeastTwiceTheOneWayDelay() {
        try (Resp resp = Resp.connect(proxy.port(), 5_000)) {
            assertEquals("PONG", resp.command("PING"));
            for (int i = 0; i < 20; i++) {
                long started = System.nanoTime();
                assertEquals("PONG", resp.command("PING"));
                long took = System.nanoTime() - started;
                assertTrue(took >= 2 * ONE_WAY.toNanos(), "a round trip took " + took / 1000 + " µs");
            }
        }
    }

    @Test
    void aLargeValueComesBackWhole() {
        RedissonClient client = client();
        try {
            byte[] bytes = new byte[4 * 1024 * 1024];
            new Random(42).nextBytes(bytes);
            String value = java.util.Base64.getEncoder().encodeToString(bytes);
            client.getBucket("proxy:large", StringCodec.INSTANCE).set(value);
            assertEquals(value, client.getBucket("proxy:large", StringCodec.INSTANCE).get());
        } finally {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPipelineKeepsItsOrderAndIsDelayedOnce() {
        RedissonClient client = client();
        try {
            client.getKeys().delete("proxy:counter");
            RBatch batch = client.createBatch();
            int commands = 2_000;
            for (int i = 0; i < commands; i++) {
                batch.getAtomicLong("proxy:counter").incrementAndGetAsync();
            }
            long started = System.nanoTime();
            BatchResult<?> result = batch.execute();
            long took = System.nanoTime() - started;
            List<Long> expected = new ArrayList<>();
            for (long i = 1; i <= commands; i++) {
                expected.add(i);
            }
            assertEquals(expected, result.getResponses());
            assertTrue(took >= 2 * ONE_WAY.toNanos(), "the pipeline took " + took / 1000 + " µs");
            // Delayed once, not once per command (which would take 2,000 x 2 ms = 4 s): a bound 4 x wider than that.
            assertTrue(took < commands / 4 * 2 * ONE_WAY.toNanos(), "the pipeline took " + took / 1000 + " µs");
        } finally {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    private static RedissonClient client() {
        Config config = new Config();
        config.useSingleServer().setAddress(proxy.redisUrl()).setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(0).setTimeout(10_000);
        return Redisson.create(config);
    }
}
