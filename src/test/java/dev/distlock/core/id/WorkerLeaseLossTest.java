package dev.distlock.core.id;

import dev.distlock.id.IdGenerationException;
import dev.distlock.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.net.URI;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node cut off from Redis (a partition: Redis stays up for everyone else) stops issuing ids
 * before Redis can let its worker lease expire, and only then can another node take that worker id.
 */
@Timeout(120)
class WorkerLeaseLossTest {

    private static final long TTL_MILLIS = 4_000;
    /** The only worker id there is, so the second node can have no other. */
    private static final SnowflakeLayout ONE_WORKER = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 22);
    private static final String NAME = "partition";

    private final String prefix = TestRedis.uniquePrefix("lease-loss");
    private final String workerKey = prefix + ":id:{" + NAME + "}:worker:0";

    @Test
    void aNodeCutOffFromRedisStopsBeforeItsLeaseCanExpireAndOnlyThenIsTheWorkerIdTakenAgain() throws Exception {
        URI redis = URI.create(TestRedis.url());
        RedissonClient observer = TestRedis.newClient();
        try (CuttableProxy proxy = new CuttableProxy(redis.getHost(), redis.getPort())) {
            RedissonClient cutOffClient = shortTimeouts(proxy.redisUrl());
            try {
                Issuer cutOff = new Issuer(leased(cutOffClient));
                try {
                    cutOff.start();
                    cutOff.awaitIds(1_000);
                    Thread.sleep(TTL_MILLIS);   // a few renewals go through first

                    long cutAt = System.nanoTime();
                    proxy.cut();
                    Thread.sleep(100);          // a renewal that was already on its way has landed by now
                    long askedAt = System.nanoTime();
                    long pttl = observer.getBucket(workerKey, StringCodec.INSTANCE).remainTimeToLive();
                    assertTrue(pttl > 0, "the cut-off node still holds the worker id in Redis, pttl " + pttl);
                    // Redis counted the remaining TTL after we asked: the key cannot expire before this.
                    long expiresNoSoonerThan = askedAt + TimeUnit.MILLISECONDS.toNanos(pttl);

                    long goneAt = awaitKeyGone(observer, askedAt + TimeUnit.MILLISECONDS.toNanos(pttl + 5_000));
                    Issuer taker = new Issuer(leased(observer));
                    try {
                        taker.start();
                        taker.awaitIds(1_000);
                        cutOff.stop();
                        taker.stop();

                        report(cutAt, expiresNoSoonerThan, goneAt, cutOff, taker);
                        assertTrue(cutOff.lastIssuedAt.get() < expiresNoSoonerThan, "the cut-off node issued its last id "
                                + millisBetween(cutOff.lastIssuedAt.get(), expiresNoSoonerThan) + " ms before its lease could expire");
                        assertNotNull(cutOff.firstRefusal, "the cut-off node refuses with IdGenerationException");
                        assertTrue(cutOff.firstRefusedAt < expiresNoSoonerThan, "the cut-off node said so "
                                + millisBetween(cutOff.firstRefusedAt, expiresNoSoonerThan) + " ms before its lease could expire");
                        assertEquals(0, cutOff.issuedAfterRefusal.get(), "no id after the first refusal");
                        assertTrue(taker.firstIssuedAt.get() > expiresNoSoonerThan, "the other node got the worker id only after it expired");
                        assertTrue(taker.minId.get() > cutOff.maxId.get(), "same worker id, later time: every id of the taker is higher");
                    } finally {
                        taker.stop();
                    }
                } finally {
                    cutOff.stop();
                }
            } finally {
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

    private static void report(long cutAt, long expiresNoSoonerThan, long goneAt, Issuer cutOff, Issuer taker) {
        System.out.printf("partition at 0 ms; cut-off node: last id at %d ms, first refusal at %d ms (%s); "
                        + "lease key expires no sooner than %d ms, seen gone at %d ms; other node's first id at %d ms%n",
                millisBetween(cutAt, cutOff.lastIssuedAt.get()), millisBetween(cutAt, cutOff.firstRefusedAt),
                cutOff.firstRefusal == null ? "none" : cutOff.firstRefusal.getMessage(),
                millisBetween(cutAt, expiresNoSoonerThan), millisBetween(cutAt, goneAt), millisBetween(cutAt, taker.firstIssuedAt.get()));
    }

    private static long millisBetween(long fromNanos, long toNanos) {
        return TimeUnit.NANOSECONDS.toMillis(toNanos - fromNanos);
    }

    /** Asks a generator for ids in small batches, as a busy node would, and notes when it issued and refused. */
    private static final class Issuer {
        final SnowflakeGenerator generator;
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong issued = new AtomicLong();
        final AtomicLong issuedAfterRefusal = new AtomicLong();
        final AtomicLong firstIssuedAt = new AtomicLong();
        final AtomicLong lastIssuedAt = new AtomicLong();
        final AtomicLong minId = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong maxId = new AtomicLong(Long.MIN_VALUE);
        volatile IdGenerationException firstRefusal;
        volatile long firstRefusedAt;
        final Thread thread;

        Issuer(SnowflakeGenerator generator) {
            this.generator = generator;
            this.thread = new Thread(this::run, "issuer-" + generator.name());
        }

        void start() {
            thread.start();
        }

        private void run() {
            while (running.get()) {
                for (int i = 0; i < 50 && running.get(); i++) {
                    try {
                        long id = generator.nextId();
                        long now = System.nanoTime();
                        if (firstRefusal != null) {
                            issuedAfterRefusal.incrementAndGet();
                        }
                        firstIssuedAt.compareAndSet(0, now);
                        lastIssuedAt.set(now);
                        minId.accumulateAndGet(id, Math::min);
                        maxId.accumulateAndGet(id, Math::max);
                        issued.incrementAndGet();
                    } catch (IdGenerationException e) {
                        if (firstRefusal == null) {
                            firstRefusedAt = System.nanoTime();
                            firstRefusal = e;
                        }
                        break;
                    }
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void awaitIds(long count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (issued.get() < count) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(generator.name() + " issued only " + issued.get() + " ids; first refusal: " + firstRefusal);
                }
                Thread.sleep(5);
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(30_000);
            generator.close();
        }
    }
}
