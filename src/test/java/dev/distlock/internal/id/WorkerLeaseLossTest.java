package dev.distlock.internal.id;

import dev.distlock.redis.RedisWorkerLeases;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.testing.IdRuns;
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
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node cut off from Redis (a partition: Redis stays up for everyone else) stops issuing ids
 * before Redis can let its worker lease expire, and only then can another node take that worker id.
 */
@Timeout(120)
class WorkerLeaseLossTest {

    /**
     * The node stops a tenth of it (600 ms) before Redis can expire the lease: room for the issuing
     * thread to be descheduled on a busy machine without blurring which came first.
     */
    private static final long TTL_MILLIS = 6_000;
    /** The only worker id there is, so the second node can have no other. */
    private static final SnowflakeLayout ONE_WORKER = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 22);
    private static final String NAME = "partition";

    private final String prefix = TestRedis.uniquePrefix("lease-loss");
    private final String workerKey = prefix + ":id:{" + NAME + "}:worker:0";

    @Test
    void aNodeCutOffFromRedisStopsBeforeItsLeaseCanExpireAndOnlyThenIsTheWorkerIdTakenAgain() throws Exception {
        URI redis = URI.create(TestRedis.url());
        RedissonClient observer = TestRedis.newClient();
        try (PartitionProxy proxy = new PartitionProxy(redis.getHost(), redis.getPort())) {
            RedissonClient cutOffClient = shortTimeouts("redis://" + proxy.address());
            try {
                SnowflakeGenerator cutOffGenerator = leased(cutOffClient);
                PacedIssuer cutOff = new PacedIssuer(cutOffGenerator).start();
                try {
                    cutOff.awaitIds(1_000);
                    Thread.sleep(TTL_MILLIS / 2);   // a renewal goes through first

                    long cutAt = System.nanoTime();
                    proxy.cut();
                    Thread.sleep(100);          // a renewal that was already on its way has landed by now
                    long askedAt = System.nanoTime();
                    long pttl = observer.getBucket(workerKey, StringCodec.INSTANCE).remainTimeToLive();
                    assertTrue(pttl > 0, "the cut-off node still holds the worker id in Redis, pttl " + pttl);
                    // Redis counted the remaining TTL after we asked: the key cannot expire before this.
                    long expiresNoSoonerThan = askedAt + TimeUnit.MILLISECONDS.toNanos(pttl);

                    long goneAt = awaitKeyGone(observer, askedAt + TimeUnit.MILLISECONDS.toNanos(pttl + 5_000));
                    SnowflakeGenerator takerGenerator = leased(observer);
                    PacedIssuer taker = new PacedIssuer(takerGenerator).start();
                    try {
                        taker.awaitIds(1_000);
                        cutOff.stop();
                        taker.stop();

                        report(cutAt, expiresNoSoonerThan, goneAt, cutOff, taker);
                        assertTrue(cutOff.lastIssuedAt() < expiresNoSoonerThan, "the cut-off node issued its last id "
                                + millisBetween(cutOff.lastIssuedAt(), expiresNoSoonerThan) + " ms before its lease could expire");
                        assertNotNull(cutOff.firstRefusal(), "the cut-off node refuses with IdGenerationException");
                        assertTrue(cutOff.firstRefusedAt() < expiresNoSoonerThan, "the cut-off node said so "
                                + millisBetween(cutOff.firstRefusedAt(), expiresNoSoonerThan) + " ms before its lease could expire");
                        assertEquals(0, cutOff.issuedAfterRefusal(), "no id after the first refusal");
                        assertTrue(taker.firstIssuedAt() > expiresNoSoonerThan, "the other node got the worker id only after it expired");
                        long highestCutOff = Arrays.stream(cutOff.ids()).max().orElseThrow();
                        long lowestTaker = Arrays.stream(taker.ids()).min().orElseThrow();
                        assertTrue(lowestTaker > highestCutOff, "same worker id, later time: every id of the taker is higher");
                    } finally {
                        taker.stop();
                        takerGenerator.close();
                    }
                } finally {
                    cutOff.stop();
                    cutOffGenerator.close();
                }
            } finally {
                cutOffClient.shutdown(0, 1, TimeUnit.SECONDS);
            }
        } finally {
            observer.getKeys().deleteByPattern(prefix + ":*");
            observer.shutdown();
        }
    }

    @Test
    void aSuccessorWhoseClockIsBehindCannotRepeatTheIdsOfANodeCutOffFromRedis() throws Exception {
        // Behind by more than the safety margin, less than the TTL: the worker id is free again while
        // the successor's clock still reads times the cut-off node has issued ids in.
        Duration behind = Duration.ofMillis(TTL_MILLIS / 3);
        URI redis = URI.create(TestRedis.url());
        RedissonClient observer = TestRedis.newClient();
        try (PartitionProxy proxy = new PartitionProxy(redis.getHost(), redis.getPort())) {
            RedissonClient cutOffClient = shortTimeouts("redis://" + proxy.address());
            SnowflakeGenerator cutOffGenerator = leased(cutOffClient);
            SnowflakeGenerator successorGenerator = null;
            try {
                PacedIssuer cutOff = new PacedIssuer(cutOffGenerator).start();
                cutOff.awaitIds(1_000);
                Thread.sleep(TTL_MILLIS / 2);
                proxy.cut();
                long goneAt = awaitKeyGone(observer, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TTL_MILLIS + 5_000));
                cutOff.stop();

                // Made only now: a generator leases at once, and one made at the start could take the
                // only worker id before the cut-off node does (seen once in a full run).
                successorGenerator = SnowflakeGenerator.leased(NAME, ONE_WORKER, new MovableClock(behind.negated()), 10,
                        RedisWorkerLeases.factory(() -> observer, prefix, TTL_MILLIS));

                PacedIssuer successor = new PacedIssuer(successorGenerator).start();
                successor.awaitIds(1_000);
                Thread.sleep(TTL_MILLIS / 3);
                successor.stop();

                long[] cutOffIds = cutOff.ids();
                long[] successorIds = successor.ids();
                long repeated = IdRuns.duplicates(IdRuns.concat(cutOffIds, successorIds));
                System.out.printf("clock %d ms behind: the successor issued its first id %d ms after the lease key vanished; "
                                + "%,d ids before the cut-off, %,d after, %,d repeated%n", behind.toMillis(),
                        millisBetween(goneAt, successor.firstIssuedAt()), cutOffIds.length, successorIds.length, repeated);
                assertEquals(0, repeated, "ids the successor repeated from the cut-off node");
                assertTrue(Arrays.stream(successorIds).min().orElseThrow() > Arrays.stream(cutOffIds).max().orElseThrow(),
                        "same worker id: every id of the successor is above the cut-off node's");
            } finally {
                cutOffGenerator.close();
                if (successorGenerator != null) {
                    successorGenerator.close();
                }
                cutOffClient.shutdown(0, 1, TimeUnit.SECONDS);
            }
        } finally {
            observer.getKeys().deleteByPattern(prefix + ":*");
            observer.shutdown();
        }
    }

    private SnowflakeGenerator leased(RedissonClient client) {
        return SnowflakeGenerator.leased(NAME, ONE_WORKER, Clock.systemUTC(), 10, RedisWorkerLeases.factory(() -> client, prefix, TTL_MILLIS));
    }

    /** A client that gives up on a silent Redis in half a second rather than the default seconds. */
    private static RedissonClient shortTimeouts(String url) {
        Config config = new Config();
        config.useSingleServer().setAddress(url).setTimeout(500).setRetryAttempts(0).setConnectTimeout(500)
                .setConnectionMinimumIdleSize(1).setSubscriptionConnectionMinimumIdleSize(0);
        return Redisson.create(config);
    }

    private long awaitKeyGone(RedissonClient observer, long deadline) throws InterruptedException {
        while (observer.getBucket(workerKey, StringCodec.INSTANCE).isExists()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the lease key " + workerKey + " did not expire");
            }
            Thread.sleep(2);
        }
        return System.nanoTime();
    }

    private static void report(long cutAt, long expiresNoSoonerThan, long goneAt, PacedIssuer cutOff, PacedIssuer taker) {
        System.out.printf("partition at 0 ms; cut-off node: last id at %d ms, first refusal at %d ms (%s); "
                        + "lease key expires no sooner than %d ms, seen gone at %d ms; other node's first id at %d ms%n",
                millisBetween(cutAt, cutOff.lastIssuedAt()), millisBetween(cutAt, cutOff.firstRefusedAt()),
                cutOff.firstRefusal() == null ? "none" : cutOff.firstRefusal().getMessage(),
                millisBetween(cutAt, expiresNoSoonerThan), millisBetween(cutAt, goneAt), millisBetween(cutAt, taker.firstIssuedAt()));
    }

    private static long millisBetween(long fromNanos, long toNanos) {
        return TimeUnit.NANOSECONDS.toMillis(toNanos - fromNanos);
    }
}
