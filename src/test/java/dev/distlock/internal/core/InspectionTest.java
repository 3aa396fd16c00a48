package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import dev.distlock.memory.InMemoryLocks;
import dev.distlock.LockInfo;
import dev.distlock.LockMode;
import dev.distlock.memory.InMemoryLockBackend;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockPolicy;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code DistributedLocks.inspect}: two servers (two Redis clients, two engines) on a real Redis,
 * one holding a key while the other's callers wait for it; each says what it holds and waits for,
 * and both read the same holder from Redis.
 */
@Timeout(60)
class InspectionTest {

    private final String prefix = TestRedis.uniquePrefix("inspect");
    private final RedissonClient clientA = TestRedis.newClient();
    private final RedissonClient clientB = TestRedis.newClient();
    private final DistributedLocks serverA = RedisLocks.builder(clientA).keyPrefix(prefix).build();
    private final DistributedLocks serverB = RedisLocks.builder(clientB).keyPrefix(prefix).build();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CountDownLatch finish = new CountDownLatch(1);

    @AfterEach
    void close() throws InterruptedException {
        finish.countDown();
        threads.shutdown();
        threads.awaitTermination(20, TimeUnit.SECONDS);
        serverA.close();
        serverB.close();
        clientA.shutdown();
        clientB.shutdown();
    }

    @Test
    void theHoldersServerAndTheWaitersServerSeeTheSameHolderInRedis() throws Exception {
        Instant before = Instant.now();
        CountDownLatch held = new CountDownLatch(1);
        Future<?> holder = threads.submit(() -> serverA.exclusive("stock:MUG").fenced().run(() -> {
            held.countDown();
            await(finish);
        }));
        assertTrue(held.await(10, TimeUnit.SECONDS));
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            waiters.add(threads.submit(() -> serverB.exclusive("stock:MUG").waitTime(Duration.ofSeconds(30)).run(() -> { })));
        }
        eventually(() -> serverB.inspect("stock:").get(0).waitingHere() == 2);
        threads.submit(() -> serverA.exclusive("other:CUP").run(() -> await(finish)));
        eventually(() -> serverA.inspect("other:").size() == 1);

        List<LockInfo> fromA = serverA.inspect("stock:");
        List<LockInfo> fromB = serverB.inspect("stock:");
        System.out.println("[inspect] A: " + fromA + "\n[inspect] B: " + fromB);

        assertEquals(1, fromA.size(), "only the key under the prefix: " + fromA);
        LockInfo a = fromA.get(0);
        assertEquals("stock:MUG", a.key());
        assertEquals(LockMode.EXCLUSIVE, a.mode());
        assertEquals(1, a.holdersHere().size());
        LockInfo.Holder holding = a.holdersHere().get(0);
        assertEquals("DistributedLocks.exclusive(...)", holding.site());
        assertTrue(!holding.since().isBefore(before.minusMillis(50)) && !holding.since().isAfter(Instant.now()), holding.since().toString());
        assertTrue(holding.fencingToken() > 0, "the fenced acquisition's token");
        assertFalse(holding.finished());
        assertEquals(0, a.waitingHere());
        assertEquals(LockInfo.Stored.State.HELD, a.store().state());
        assertTrue(a.store().heldByThisJvm());
        assertEquals(1, a.store().holders().size());
        assertTrue(a.store().leaseLeft().isPresent() && a.store().leaseLeft().get().compareTo(Duration.ofSeconds(30)) <= 0,
                "a watchdog lease: at most Redisson's 30 s, " + a.store().leaseLeft());

        assertEquals(1, fromB.size());
        LockInfo b = fromB.get(0);
        assertEquals("stock:MUG", b.key());
        assertEquals(List.of(), b.holdersHere());
        assertEquals(2, b.waitingHere(), "the two callers queued on server B");
        assertEquals(LockInfo.Stored.State.HELD, b.store().state());
        assertFalse(b.store().heldByThisJvm());
        assertEquals(a.store().holders(), b.store().holders(), "the same acquisition, read from Redis by both");

        finish.countDown();
        holder.get(10, TimeUnit.SECONDS);
        for (Future<?> waiter : waiters) {
            waiter.get(30, TimeUnit.SECONDS);
        }
        eventually(() -> serverA.inspect("").isEmpty() && serverB.inspect("").isEmpty());
    }

    @Test
    void readersOnBothServersAreAllListed() throws Exception {
        CountDownLatch reading = new CountDownLatch(2);
        for (DistributedLocks server : List.of(serverA, serverB)) {
            threads.submit(() -> server.read("catalog").run(() -> {
                reading.countDown();
                await(finish);
            }));
        }
        assertTrue(reading.await(10, TimeUnit.SECONDS));

        List<LockInfo> fromA = serverA.inspect("cat");
        assertEquals(1, fromA.size(), fromA.toString());
        LockInfo a = fromA.get(0);
        assertEquals(LockMode.READ, a.mode());
        assertEquals(1, a.holdersHere().size());
        assertEquals("DistributedLocks.read(...)", a.holdersHere().get(0).site());
        assertEquals(2, a.store().holders().size(), "both servers' readers: " + a.store());
        assertTrue(a.store().heldByThisJvm());
    }

    @Test
    void aLockKeptForItsMinimumHoldShowsItsHolderFinished() throws Exception {
        serverA.exclusive("tick").waitTime(Duration.ZERO).skipOnTimeout().holdAtLeast(Duration.ofSeconds(20)).run(() -> { });

        LockInfo tick = serverA.inspect("tick").get(0);
        assertTrue(tick.holdersHere().get(0).finished(), tick.toString());
        assertEquals(LockInfo.Stored.State.HELD, tick.store().state());
        LockInfo fromB = serverB.inspect("tick").get(0);
        assertEquals(List.of(), fromB.holdersHere());
        assertEquals(LockInfo.Stored.State.HELD, fromB.store().state());
    }

    @Test
    void theMemoryStoreListsItsLocksForApplicationsTests() throws Exception {
        try (DistributedLocks memory = InMemoryLocks.builder().keyPrefix(prefix).build()) {
            CountDownLatch held = new CountDownLatch(1);
            threads.submit(() -> memory.exclusive("job").leaseTime(Duration.ofSeconds(20)).run(() -> {
                held.countDown();
                await(finish);
            }));
            assertTrue(held.await(10, TimeUnit.SECONDS));
            List<LockInfo> locks = memory.inspect("");
            assertEquals(1, locks.size(), locks.toString());
            LockInfo job = locks.get(0);
            assertEquals("job", job.key());
            assertEquals(1, job.holdersHere().size());
            assertEquals(LockInfo.Stored.State.HELD, job.store().state());
            assertTrue(job.store().heldByThisJvm());
            Duration left = job.store().leaseLeft().orElseThrow();
            assertTrue(left.compareTo(Duration.ZERO) > 0 && left.compareTo(Duration.ofSeconds(20)) <= 0, left.toString());
        }
    }

    @Test
    void aStoreThatCannotListItsLocksSaysSoAndTheLocalViewStands() throws Exception {
        InMemoryLockBackend store = new InMemoryLockBackend();
        LockBackend withoutListing = new LockBackend() {
            @Override
            public String displayName() {
                return "a store without a listing";
            }

            @Override
            public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
                return store.acquire(name, policy, deadlineNanos);
            }

            @Override
            public long leaseMillis(LockPolicy policy) {
                return store.leaseMillis(policy);
            }
        };
        try (DistributedLocks locks = DistributedLocks.builder(withoutListing).keyPrefix(prefix).build()) {
            CountDownLatch held = new CountDownLatch(1);
            threads.submit(() -> locks.exclusive("job").run(() -> {
                held.countDown();
                await(finish);
            }));
            assertTrue(held.await(10, TimeUnit.SECONDS));
            LockInfo job = locks.inspect("").get(0);
            assertEquals(1, job.holdersHere().size());
            assertEquals(LockInfo.Stored.State.UNKNOWN, job.store().state());
            assertEquals("listing its locks is not supported by a store without a listing", job.store().problem().orElseThrow());
        }
    }

    @Test
    void aStoreThatDoesNotAnswerIsReportedAndTheLocalViewStands() throws Exception {
        InMemoryLockBackend store = new InMemoryLockBackend();
        try (DistributedLocks locks = DistributedLocks.builder(store).keyPrefix(prefix).build()) {
            CountDownLatch held = new CountDownLatch(1);
            threads.submit(() -> locks.exclusive("job").run(() -> {
                held.countDown();
                await(finish);
            }));
            assertTrue(held.await(10, TimeUnit.SECONDS));
            store.down(true);
            try {
                LockInfo job = locks.inspect("").get(0);
                assertEquals(1, job.holdersHere().size());
                assertEquals(LockInfo.Stored.State.UNKNOWN, job.store().state());
                assertTrue(job.store().problem().orElseThrow().contains("the memory store is down"), job.store().toString());
            } finally {
                store.down(false);
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 10 s");
            Thread.sleep(20);
        }
    }
}
