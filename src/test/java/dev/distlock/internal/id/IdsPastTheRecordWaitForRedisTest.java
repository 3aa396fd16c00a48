package dev.distlock.internal.id;

import dev.distlock.id.IdGenerationException;
import dev.distlock.redis.RedisWorkerLeases;
import dev.distlock.spi.id.WorkerLeases;
import dev.distlock.testing.MovableClock;
import dev.distlock.testkit.PartitionProxy;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leased generator whose clock steps forward issues no id past the last millisecond Redis has recorded for its
 * lease: the first id past it waits for one renewal, and while Redis does not answer, none is issued there. Checked
 * right after each id, before any heartbeat could have caught up (the lease is 30 s, renewed every 10 s).
 */
@Timeout(60)
class IdsPastTheRecordWaitForRedisTest {

    private static final long LEASE_MILLIS = 30_000;
    private static final int STEPS = 20;
    private static final int IDS_PER_STEP = 1_000;
    private static final String NAME = "past-the-record";

    private final String prefix = TestRedis.uniquePrefix("past-record");

    @Test
    void afterEachForwardStepRedisHasRecordedEveryIdIssued() {
        assertEquals(0, idsPastTheRecord(true), "ids issued in a millisecond past the record in Redis");
    }

    /** The twin: a generator that issues past the record, as before the bound, is seen doing so. */
    @Test
    void twinWithoutTheBoundIdsRunAheadOfTheRecord() {
        assertTrue(idsPastTheRecord(false) > 0, "ids issued past the record");
    }

    /** {@value #STEPS} steps of a minute forward, {@value #IDS_PER_STEP} ids after each; how many were past the record. */
    private long idsPastTheRecord(boolean bounded) {
        RedissonClient redis = TestRedis.newClient();
        MovableClock clock = new MovableClock();
        WorkerLeases leases = RedisWorkerLeases.factory(() -> redis, prefix, LEASE_MILLIS);
        long past = 0;
        long slowest = 0;
        try (SnowflakeGenerator generator = bounded ? SnowflakeGenerator.leased(NAME, SteppedClockNode.ONE_WORKER, clock, 10, leases)
                : SnowflakeGenerator.leasedPastTheRecord(NAME, SteppedClockNode.ONE_WORKER, clock, 10, leases)) {
            generator.nextId();
            for (int step = 0; step < STEPS; step++) {
                clock.moveBy(Duration.ofMinutes(1));
                long started = System.nanoTime();
                long id = generator.nextId();
                slowest = Math.max(slowest, System.nanoTime() - started);
                for (int i = 1; i < IDS_PER_STEP; i++) {
                    id = generator.nextId();
                }
                long record = record(redis);
                // Every id after the step is in a millisecond at or before the last one.
                past += millis(id) > record ? IDS_PER_STEP : 0;
            }
        } finally {
            redis.getKeys().deleteByPattern(prefix + ":*");
            redis.shutdown();
        }
        System.out.printf("%s: %,d steps of a minute, %,d ids after each: %,d past the record; first id after a step: at most %.2f ms%n",
                bounded ? "bounded" : "twin", STEPS, IDS_PER_STEP, past, slowest / 1e6);
        return past;
    }

    @Test
    void cutOffFromRedisAfterAForwardStepNoIdIsIssuedUntilRedisRecordsItsTime() throws Exception {
        URI url = URI.create(TestRedis.url());
        RedissonClient observer = TestRedis.newClient();
        try (PartitionProxy proxy = new PartitionProxy(url.getHost(), url.getPort())) {
            RedissonClient client = shortTimeouts("redis://" + proxy.address());
            MovableClock clock = new MovableClock();
            try (SnowflakeGenerator generator = SnowflakeGenerator.leased(NAME, SteppedClockNode.ONE_WORKER, clock, 10,
                    RedisWorkerLeases.factory(() -> client, prefix, LEASE_MILLIS))) {
                generator.nextId();
                proxy.cut();
                clock.moveBy(Duration.ofMinutes(10));

                IdGenerationException refused = assertThrows(IdGenerationException.class, generator::nextId);
                assertTrue(refused.getMessage().contains("could not be recorded"), refused::getMessage);
                long started = System.nanoTime();
                assertThrows(IdGenerationException.class, generator::nextId);
                long againMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                assertTrue(againMillis < 200, "the next call is refused at once, not after Redis's timeout: " + againMillis + " ms");

                proxy.heal();
                long id = awaitId(generator);
                assertTrue(millis(id) <= record(observer), "the first id after Redis answers again is within the record");
                System.out.printf("cut off: refused (%s), again in %d ms; healed: issuing again%n", refused.getMessage(), againMillis);
            } finally {
                client.shutdown(0, 1, TimeUnit.SECONDS);
            }
        } finally {
            observer.getKeys().deleteByPattern(prefix + ":*");
            observer.shutdown();
        }
    }

    private static long awaitId(SnowflakeGenerator generator) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return generator.nextId();
            } catch (IdGenerationException refused) {
                if (System.nanoTime() - deadline > 0) {
                    throw refused;
                }
                Thread.sleep(20);
            }
        }
    }

    private long record(RedissonClient redis) {
        return Long.parseLong(redis.<String, String>getMap(prefix + ":id:{" + NAME + "}:last", StringCodec.INSTANCE).get("0"));
    }

    private static long millis(long id) {
        return id >>> (SteppedClockNode.ONE_WORKER.workerBits() + SteppedClockNode.ONE_WORKER.sequenceBits());
    }

    /** A client that gives up on a silent Redis in half a second rather than the default seconds. */
    private static RedissonClient shortTimeouts(String url) {
        Config config = new Config();
        config.useSingleServer().setAddress(url).setTimeout(500).setRetryAttempts(0).setConnectTimeout(500)
                .setConnectionMinimumIdleSize(1).setSubscriptionConnectionMinimumIdleSize(0);
        return Redisson.create(config);
    }
}
