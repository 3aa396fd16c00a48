package dev.distlock.core;

import dev.distlock.DistributedLocks;
import dev.distlock.LockContext;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fencing tokens: larger for every acquisition, also after Redis lost the counter. */
class FencingTokenTest {

    private static final RedissonClient client = TestRedis.sharedClient();

    private static DistributedLocks locks() {
        return DistributedLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("fence")).build();
    }

    @Test
    void everyAcquisitionGetsALargerToken() {
        DistributedLocks locks = locks();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tokens.add(locks.exclusive("stock:A").fenced().get(() -> locks.context().fencingToken().orElseThrow()));
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens " + tokens);
        }
        assertTrue(tokens.get(0) >= FencingTokens.SEEDED, "seeded from Redis time: " + tokens.get(0));
    }

    @Test
    void tokenIsOnlyVisibleInsideTheFencedCall() {
        DistributedLocks locks = locks();
        LockContext context = locks.context();
        assertEquals(OptionalLong.empty(), context.fencingToken());
        locks.exclusive("plain").run(() -> assertEquals(OptionalLong.empty(), context.fencingToken()));
        locks.exclusive("outer").fenced().run(() -> {
            long outer = context.fencingToken().orElseThrow();
            locks.exclusive("inner").fenced().run(() -> {
                long inner = context.fencingToken().orElseThrow();
                assertEquals(OptionalLong.of(outer), context.fencingToken("outer"));
                assertEquals(OptionalLong.of(inner), context.fencingToken("inner"));
                assertEquals(OptionalLong.empty(), context.fencingToken("other"));
            });
            assertEquals(OptionalLong.of(outer), context.fencingToken());
        });
        assertEquals(OptionalLong.empty(), context.fencingToken());
    }

    /** Redis restarted without its data: the counter is gone, yet tokens carry on above the old ones. */
    @Test
    void tokensDoNotGoBackwardsWhenRedisLosesTheCounter() {
        DistributedLocks locks = locks();
        long before = locks.exclusive("stock:B").fenced().get(() -> locks.context().fencingToken().orElseThrow());
        String counter = FencingTokens.counterName(Engines.executor(locks).redisKey(LockMode.EXCLUSIVE, "stock:B"));
        assertEquals(1, client.getKeys().delete(counter));
        long after = locks.exclusive("stock:B").fenced().get(() -> locks.context().fencingToken().orElseThrow());
        assertTrue(after > before, "after the loss " + after + ", before " + before);
    }

    /** Twin of the test above: Redisson's fenced lock alone starts counting again at 1. */
    @Test
    void withoutSeedingTokensGoBackwards() {
        String name = TestRedis.uniquePrefix("fence-raw") + ":stock";
        RFencedLock raw = client.getFencedLock(name);
        long before = raw.lockAndGetToken();
        raw.unlock();
        long second = raw.lockAndGetToken();
        raw.unlock();
        client.getKeys().delete(FencingTokens.counterName(name));
        long after = raw.lockAndGetToken();
        raw.unlock();
        assertTrue(second > before);
        assertTrue(after < second, "raw token after the loss " + after + " should fall below " + second);
    }

    /** A clock set back on the Redis host: the floor restores the order. */
    @Test
    void raisedFloorPutsLaterTokensAboveIt() {
        DistributedLocks locks = locks();
        long first = locks.exclusive("stock:C").fenced().get(() -> locks.context().fencingToken().orElseThrow());
        long floor = first + 1_000_000_000L;
        assertEquals(floor, locks.raiseFencingFloor("stock:C", floor));
        assertEquals(floor, locks.raiseFencingFloor("stock:C", first), "a lower floor changes nothing");
        long next = locks.exclusive("stock:C").fenced().get(() -> locks.context().fencingToken().orElseThrow());
        assertEquals(floor + 1, next);
        assertThrows(IllegalArgumentException.class, () -> locks.raiseFencingFloor("stock:C", -1));
    }

    /**
     * A holder pauses past its lease (a GC pause, a stopped VM): another takes the lock and writes;
     * the paused holder's late write carries the older token and the fenced store refuses it.
     */
    @Test
    void storeRefusesTheLateWriteOfAHolderWhoseLeaseRanOut() throws Exception {
        FencedStore store = new FencedStore();
        Outcome outcome = pausedHolderWritesLate(true, store);
        assertEquals("second", store.value);
        assertFalse(outcome.lateWriteAccepted, "the paused holder's write must be refused");
    }

    /** Twin: the same pause without tokens, and the paused holder overwrites the newer value. */
    @Test
    void withoutTokensTheLateWriteOverwritesTheNewerOne() throws Exception {
        FencedStore store = new FencedStore();
        Outcome outcome = pausedHolderWritesLate(false, store);
        assertTrue(outcome.lateWriteAccepted);
        assertEquals("first", store.value, "the stale holder overwrote the newer value");
    }

    @Test
    void fencedLocksAreNotHandedOnLocally() throws Exception {
        DistributedLocks locks = locks();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                calls.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        locks.exclusive("hot").fenced().waitForever()
                                .run(() -> tokens.add(locks.context().fencingToken().orElseThrow()));
                    }
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, Engines.executor(locks).handoffCount());
        assertEquals(100, tokens.stream().distinct().count(), "every acquisition its own token");
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens in the order the lock was held");
        }
    }

    @Test
    void readAndWriteLocksHaveNoTokens() {
        DistributedLocks locks = locks();
        assertThrows(IllegalStateException.class, () -> locks.read("doc").fenced());
        assertThrows(IllegalStateException.class, () -> locks.write("doc").fenced());
    }

    // ------------------------------------------------------------------ helpers

    /**
     * A store that keeps the largest token it accepted and refuses writes with a smaller one;
     * writes without a token (no fencing) always get in.
     */
    private static final class FencedStore {
        private long fence;
        private String value;

        synchronized boolean write(String newValue, OptionalLong token) {
            if (token.isPresent()) {
                if (token.getAsLong() < fence) {
                    return false;
                }
                fence = token.getAsLong();
            }
            value = newValue;
            return true;
        }
    }

    private record Outcome(boolean lateWriteAccepted) {
    }

    /**
     * The first holder takes the lock with a 300 ms lease and stalls until the second, in another
     * JVM (another client and engine), takes the expired lock and writes "second"; then the first
     * writes "first".
     */
    private static Outcome pausedHolderWritesLate(boolean fenced, FencedStore store) throws Exception {
        String prefix = TestRedis.uniquePrefix("fence");
        DistributedLocks locks = DistributedLocks.builder(client).keyPrefix(prefix).build();
        RedissonClient otherClient = TestRedis.newClient();
        DistributedLocks otherJvm = DistributedLocks.builder(otherClient).keyPrefix(prefix).build();
        CountDownLatch secondWrote = new CountDownLatch(1);
        AtomicBoolean lateWriteAccepted = new AtomicBoolean();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> first = pool.submit(() -> {
                DistributedLocks.LockCall call = locks.exclusive("stock:D").leaseTime(Duration.ofMillis(300));
                if (fenced) {
                    call.fenced();
                }
                try {
                    call.run(() -> {
                        OptionalLong token = locks.context().fencingToken();
                        await(secondWrote); // stalled past the lease
                        lateWriteAccepted.set(store.write("first", token));
                    });
                } catch (LockLostException expected) {
                    // the release finds the lock gone; what matters is whether the write got in
                }
            });
            Thread.sleep(100);
            DistributedLocks.LockCall second = otherJvm.exclusive("stock:D").waitTime(Duration.ofSeconds(5));
            if (fenced) {
                second.fenced();
            }
            second.run(() -> assertTrue(store.write("second", otherJvm.context().fencingToken())));
            secondWrote.countDown();
            first.get(20, TimeUnit.SECONDS);
            return new Outcome(lateWriteAccepted.get());
        } finally {
            pool.shutdownNow();
            otherClient.shutdown();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
