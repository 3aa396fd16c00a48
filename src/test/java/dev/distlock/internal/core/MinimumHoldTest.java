package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import dev.distlock.LockDefinitionException;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code holdAtLeast}: a scheduled tick that every server fires runs once per cluster, on two
 * servers (two Redis clients, two engines) against a real Redis; the twin without the minimum hold
 * runs it twice.
 */
@Timeout(60)
class MinimumHoldTest {

    /** Generous: the machine is small and shared. */
    private static final long SLACK_MILLIS = 2_000;

    private final String prefix = TestRedis.uniquePrefix("min-hold");
    private final RedissonClient clientA = TestRedis.newClient();
    private final RedissonClient clientB = TestRedis.newClient();
    private final DistributedLocks serverA = RedisLocks.builder(clientA).keyPrefix(prefix).build();
    private final DistributedLocks serverB = RedisLocks.builder(clientB).keyPrefix(prefix).build();
    private final AtomicInteger runs = new AtomicInteger();

    @AfterEach
    void close() {
        serverA.close();
        serverB.close();
        clientA.shutdown();
        clientB.shutdown();
    }

    /** One server's tick: skipped when another server holds the tick's lock. */
    private void tick(DistributedLocks server, Duration holdAtLeast) {
        server.exclusive("report:nightly").waitTime(Duration.ZERO).skipOnTimeout().holdAtLeast(holdAtLeast)
                .run(runs::incrementAndGet);
    }

    @Test
    void aServerWhoseClockIsLateSkipsTheTickTheFirstServerRan() throws Exception {
        tick(serverA, Duration.ofSeconds(10));
        TimeUnit.MILLISECONDS.sleep(300); // server B's clock is 300 ms behind: it fires the same tick now
        tick(serverB, Duration.ofSeconds(10));
        tick(serverA, Duration.ofSeconds(10)); // and a second call on the first server is no different

        assertEquals(1, runs.get(), "the tick ran once in the cluster");
    }

    @Test
    void withoutTheMinimumHoldTheLateServerRunsTheTickAgain() throws Exception {
        tick(serverA, Duration.ZERO);
        TimeUnit.MILLISECONDS.sleep(300);
        tick(serverB, Duration.ZERO);

        assertEquals(2, runs.get(), "the twin without a minimum hold ran the tick on both servers");
    }

    @Test
    void theLockGoesBackWhenTheHoldHasPassed() throws Exception {
        long holdMillis = 1_000;
        long start = System.nanoTime();
        tick(serverA, Duration.ofMillis(holdMillis));
        tick(serverB, Duration.ofMillis(holdMillis));
        assertEquals(1, runs.get(), "still held right after the work");

        serverB.exclusive("report:nightly").waitTime(Duration.ofSeconds(10)).run(runs::incrementAndGet);
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertEquals(2, runs.get());
        assertTrue(waitedMillis >= holdMillis - 20, "taken again " + waitedMillis + " ms after the first acquisition");
        assertTrue(waitedMillis < holdMillis + SLACK_MILLIS, "taken again only after " + waitedMillis + " ms");
    }

    @Test
    void workThatOutlastsTheHoldReleasesWhenItReturns() {
        serverA.exclusive("report:nightly").holdAtLeast(Duration.ofMillis(50)).run(() -> sleep(300));

        tick(serverB, Duration.ZERO);

        assertEquals(1, runs.get(), "the lock was free as soon as the longer work returned");
    }

    @Test
    void closingTheLocksGivesBackWhatTheyKeep() {
        tick(serverA, Duration.ofMinutes(5));
        serverA.close();

        tick(serverB, Duration.ZERO);

        assertEquals(2, runs.get(), "the stopped server's kept lock was given back");
    }

    @Test
    void aMinimumHoldIsForExclusiveLocksWithinTheirLease() {
        assertThrows(IllegalStateException.class, () -> serverA.read("k").holdAtLeast(Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> serverA.exclusive("k").holdAtLeast(Duration.ofSeconds(-1)));
        LockDefinitionException longerThanLease = assertThrows(LockDefinitionException.class, () -> serverA.exclusive("k")
                .leaseTime(Duration.ofSeconds(1)).holdAtLeast(Duration.ofSeconds(2)).run(runs::incrementAndGet));
        assertTrue(longerThanLease.getMessage().contains("holdAtLeast"), longerThanLease.getMessage());
        assertEquals(0, runs.get());
    }

    private static void sleep(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
