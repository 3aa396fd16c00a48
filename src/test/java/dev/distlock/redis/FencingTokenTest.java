package dev.distlock.redis;

import dev.distlock.internal.core.*;
import dev.distlock.testkit.backend.*;
import dev.distlock.testing.EngineAccess;
import dev.distlock.DistributedLocks;
import dev.distlock.LocalHandoff;
import dev.distlock.LockContext;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fencing tokens: larger for every acquisition, also after Redis lost the counter. */
class FencingTokenTest {

    private static final RedissonClient client = TestRedis.sharedClient();

    private static DistributedLocks locks() {
        return RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("fence")).build();
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
        long[] tokens = lastBeforeAndFirstAfterTheCounterIsLost(locks());
        assertTrue(tokens[1] > tokens[0], "after the loss " + tokens[1] + ", before " + tokens[0]);
    }

    /** Twin of the test above: the same path with distlock's seeding switched off counts again from 1. */
    @Test
    void withoutSeedingTokensGoBackwards() {
        try (DistributedLocks unseeded = UnseededTokens.locks(client, TestRedis.uniquePrefix("fence-unseeded"), Duration.ofSeconds(5))) {
            long[] tokens = lastBeforeAndFirstAfterTheCounterIsLost(unseeded);
            assertTrue(tokens[1] < tokens[0], "unseeded, the token after the loss " + tokens[1] + " should fall below " + tokens[0]);
        }
    }

    /** Two fenced holders of {@code stock:B}, then its counter deleted (what a restart without data does), then one more. */
    private static long[] lastBeforeAndFirstAfterTheCounterIsLost(DistributedLocks locks) {
        long before = 0;
        for (int i = 0; i < 2; i++) {
            before = locks.exclusive("stock:B").fenced().get(() -> locks.context().fencingToken().orElseThrow());
        }
        String counter = FencingTokens.counterName(EngineAccess.executor(locks).lockName(LockMode.EXCLUSIVE, "stock:B"));
        assertEquals(1, client.getKeys().delete(counter));
        long after = locks.exclusive("stock:B").fenced().get(() -> locks.context().fencingToken().orElseThrow());
        return new long[] {before, after};
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

    /**
     * Fenced locks are handed on between callers of a JVM like plain ones, and the token is the
     * tenure's: callers that took the lock from Redis have tokens of their own, in the order they
     * held it; a caller it was handed to has its predecessor's.
     */
    @Test
    void fencedLocksAreHandedOnLocallyKeepingTheTenuresToken() throws Exception {
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
        long handoffs = EngineAccess.executor(locks).handoffCount();
        assertTrue(handoffs > 0, "four threads on one key: the lock should have been handed on");
        assertEquals(100 - handoffs, tokens.stream().distinct().count(),
                "one token per acquisition in Redis, kept by the callers it was handed to");
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) >= tokens.get(i - 1), "tokens in the order the lock was held: " + tokens);
        }
    }

    /**
     * A tenure handed along a chain of local callers is lost in the middle (Redis loses the key);
     * another JVM takes the lock, gets a larger token and writes. A caller the lost tenure is still
     * handed to runs under its old token: the store refuses its write, and it learns of the loss
     * (LockLostException), as does the holder before it. Once a check has found the tenure gone it
     * is not handed on again: a later caller takes the lock anew in Redis, with a token above the
     * other JVM's, and its write is rightly taken.
     */
    @Test
    void aHandedOnTenureLostMidChainHasItsLaterWritesRefused() throws Exception {
        Chain chain = lostMidChain(true);
        List<Write> underLostTenure = chain.late.stream().filter(w -> w.token == chain.firstToken).toList();
        // Usually the first holder hands the tenure on before any check finds it gone. When the lease
        // watch's check comes first, the tenure is known broken and handed to nobody: every late caller
        // then takes the lock anew, above the other JVM's token, which the loop below checks too.
        assertTrue(underLostTenure.stream().noneMatch(w -> w.accepted), "a write under the lost tenure got in: " + chain);
        for (Write write : chain.late) {
            assertTrue(write.token == chain.firstToken || write.token > chain.otherToken, "a token of neither tenure: " + chain);
            assertEquals(write.token > chain.otherToken, write.accepted, chain.toString());
        }
        assertEquals(1 + underLostTenure.size(), chain.lostCalls,
                "the first holder and every caller under the lost tenure learn that the lock was lost: " + chain);
        String last = chain.late.stream().filter(w -> w.accepted).map(w -> w.value).reduce((x, y) -> y).orElse("other JVM");
        assertEquals(last, chain.store.value, chain.toString());
    }

    /** Twin: the same chain without tokens, and the caller handed the lost tenure overwrites the newer value. */
    @Test
    void withoutTokensTheChainAfterTheLossOverwrites() throws Exception {
        Chain chain = lostMidChain(false);
        assertTrue(chain.handoffs >= 1, chain.toString());
        assertTrue(chain.late.get(0).accepted, chain.toString());
        assertTrue(chain.store.value.startsWith("late"), "the stale chain overwrote the newer value: " + chain);
    }

    private record Write(String value, long token, boolean accepted) {
    }

    private record Chain(FencedStore store, long firstToken, long otherToken, List<Write> late, long handoffs, int lostCalls) {
    }

    /**
     * The first holder takes the lock and, while it holds it, two more callers of this JVM queue
     * for it. Redis then loses the key; another JVM takes the lock and writes "other JVM". The first
     * holder finishes, and the two waiting callers write in turn.
     */
    private static Chain lostMidChain(boolean fenced) throws Exception {
        String prefix = TestRedis.uniquePrefix("fence-chain");
        // The first holder keeps the lock for a while: a handoff bound long enough to pass it on after.
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix)
                .localHandoff(new LocalHandoff(128, Duration.ofSeconds(30))).build();
        RedissonClient otherClient = TestRedis.newClient();
        DistributedLocks otherJvm = RedisLocks.builder(otherClient).keyPrefix(prefix).build();
        FencedStore store = new FencedStore();
        List<Write> late = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger lostCalls = new AtomicInteger();
        AtomicLong firstToken = new AtomicLong();
        AtomicLong otherToken = new AtomicLong();
        CountDownLatch firstInside = new CountDownLatch(1);
        CountDownLatch otherWrote = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> calls = new ArrayList<>();
            calls.add(pool.submit(() -> call(locks, fenced, lostCalls, () -> {
                firstToken.set(locks.context().fencingToken().orElse(0));
                assertTrue(store.write("first", locks.context().fencingToken()));
                firstInside.countDown();
                await(otherWrote);
            })));
            await(firstInside);
            for (int i = 0; i < 2; i++) {
                String value = "late " + i;
                calls.add(pool.submit(() -> call(locks, fenced, lostCalls, () -> {
                    OptionalLong token = locks.context().fencingToken();
                    late.add(new Write(value, token.orElse(0), store.write(value, token)));
                })));
            }
            Thread.sleep(300); // both queued behind the first holder
            assertTrue(client.getKeys().delete(prefix + ":lock:hot") == 1, "the lock key should exist");
            DistributedLocks.LockCall other = otherJvm.exclusive("hot").waitTime(Duration.ofSeconds(5));
            if (fenced) {
                other.fenced();
            }
            other.run(() -> {
                otherToken.set(otherJvm.context().fencingToken().orElse(0));
                assertTrue(store.write("other JVM", otherJvm.context().fencingToken()));
            });
            otherWrote.countDown();
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
            return new Chain(store, firstToken.get(), otherToken.get(), List.copyOf(late),
                    EngineAccess.executor(locks).handoffCount(), lostCalls.get());
        } finally {
            pool.shutdownNow();
            otherClient.shutdown();
        }
    }

    /** One call on "hot"; a LockLostException at its end is counted, not thrown. */
    private static Void call(DistributedLocks locks, boolean fenced, AtomicInteger lost, Runnable work) {
        DistributedLocks.LockCall call = locks.exclusive("hot").waitForever();
        if (fenced) {
            call.fenced();
        }
        try {
            call.run(work);
        } catch (LockLostException expected) {
            lost.incrementAndGet();
        }
        return null;
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
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).build();
        RedissonClient otherClient = TestRedis.newClient();
        DistributedLocks otherJvm = RedisLocks.builder(otherClient).keyPrefix(prefix).build();
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
