package dev.distlock.redis;

import dev.distlock.DistributedLocks;
import dev.distlock.internal.core.EngineBuilder;
import dev.distlock.testing.EngineAccess;
import dev.distlock.testkit.TestRedis;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fenced lock's token counter expires once its lock has been free for the configured time, so
 * that names locked once do not stay in Redis for ever; a counter made again afterwards is seeded
 * from Redis's clock and issues tokens above every token the old one issued. The twin shows why the
 * seeding is what makes expiry safe: with it switched off, a counter made again starts at 1.
 */
class FencingCounterExpiryTest {

    private static final long EXPIRY_MILLIS = 150;
    private static final RedissonClient client = TestRedis.sharedClient();
    private final List<DistributedLocks> engines = new ArrayList<>();

    private DistributedLocks locks(long counterExpiryMillis) {
        return track(new EngineBuilder().keyPrefix(TestRedis.uniquePrefix("counter-expiry"))
                .build(new RedisBackend(() -> client, 5_000, counterExpiryMillis)));
    }

    private DistributedLocks track(DistributedLocks locks) {
        engines.add(locks);
        return locks;
    }

    @AfterEach
    void close() {
        engines.forEach(DistributedLocks::close);
    }

    private static long token(DistributedLocks locks, String key) {
        return locks.exclusive(key).fenced().get(() -> locks.context().fencingToken(key).orElseThrow());
    }

    private static String counter(DistributedLocks locks, String key) {
        return FencingTokens.counterName(EngineAccess.lockName(locks, key, false));
    }

    @Test
    void anExpiredCounterIsMadeAgainAboveEveryEarlierToken() {
        DistributedLocks locks = locks(EXPIRY_MILLIS);
        String counter = counter(locks, "sku:A");
        List<Long> tokens = new ArrayList<>();
        int recreated = 0;
        for (int round = 0; round < 40; round++) {
            tokens.add(token(locks, "sku:A"));
            long ttl = client.getBucket(counter).remainTimeToLive();
            assertTrue(ttl > 0 && ttl <= EXPIRY_MILLIS, "the counter expires after the quiet time once released: " + ttl);
            if (round % 2 == 0) {
                assertTrue(Waits.until(5_000, () -> !client.getBucket(counter).isExists()), "the counter expired");
                recreated++;
            }
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens rise across " + recreated + " expiries: " + tokens);
        }
    }

    @Test
    void aCounterThatExpiresWhileItsLockIsHeldIsMadeAgainAboveTheHoldersToken() {
        DistributedLocks locks = locks(EXPIRY_MILLIS);
        String counter = counter(locks, "sku:B");
        long first = token(locks, "sku:B");
        long held = locks.exclusive("sku:B").fenced().get(() -> {
            long token = locks.context().fencingToken("sku:B").orElseThrow();
            // Taking the lock incremented the counter, which keeps the expiry its last release set.
            assertTrue(Waits.until(5_000, () -> !client.getBucket(counter).isExists()), "the counter expired while held");
            return token;
        });
        long after = token(locks, "sku:B");
        assertTrue(first < held && held < after, "tokens " + first + ", " + held + " (counter expired while held), " + after);
    }

    @Test
    void withoutExpiryTheCounterStays() {
        DistributedLocks locks = locks(0);
        String counter = counter(locks, "sku:C");
        token(locks, "sku:C");
        assertEquals(-1, client.getBucket(counter).remainTimeToLive(), "no expiry on the counter");
    }

    /**
     * The twin: distlock's own path with its seeding switched off, the counter left as Redisson makes
     * it. Once it expired it starts again at 1, below the tokens it issued before.
     */
    @Test
    void anUnseededCounterThatExpiredStartsAgainBelowEarlierTokens() {
        DistributedLocks locks = track(new EngineBuilder().keyPrefix(TestRedis.uniquePrefix("counter-expiry-unseeded"))
                .build(RedisBackend.withoutSeeding(() -> client, 5_000, EXPIRY_MILLIS)));
        String counter = counter(locks, "sku:D");
        long first = token(locks, "sku:D");
        long second = token(locks, "sku:D");
        assertTrue(Waits.until(5_000, () -> !client.getBucket(counter).isExists()), "the counter expired");
        long afterExpiry = token(locks, "sku:D");
        assertTrue(second > first, first + " then " + second);
        assertTrue(afterExpiry < second, "without seeding, the new counter's token " + afterExpiry
                + " should fall below the earlier " + second + " (a store would then refuse every later holder)");
    }
}
