package dev.distlock.topologies;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.DistributedLocks;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.RedisProcesses;
import dev.distlock.testkit.Resp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A master that stalls for 1.5 s ({@code DEBUG SLEEP}), as one does while it is failing over,
 * forking, or running a slow script: the lock request sent meanwhile waits in its socket and runs
 * when the master wakes up, after the caller has given up. The lock must not stay behind: the
 * caller was told "the method did not run" and will never release it.
 *
 * <p>Three orders of giving up, all three must leave the key free:
 * <ul>
 *   <li>distlock's answer deadline (waitTime + answerGrace) runs out, then the request succeeds
 *       late: distlock gives the lock straight back;</li>
 *   <li>Redisson's response timeout runs out first (as with the defaults: timeout 3 s against
 *       waitTime + answerGrace of 5 + 5 s): the attempt fails with RedisResponseTimeoutException;</li>
 *   <li>distlock's deadline, then Redisson's timeout, both before the master wakes up: the attempt
 *       ends in an error, not a late success.</li>
 * </ul>
 * Against the library before 43d832e the last two left the key locked for the whole watchdog
 * lease (PTTL 28 s of 30 s after the stall, holder the caller's id) and the next caller failed
 * with LockTimeoutException although nobody held the lock; found here independently of the fault
 * suite's ClientPauseLeftoverLockIT, which led to that fix. The same could happen to lock
 * requests caught in a Sentinel failover (see {@link SentinelFailoverIT}).
 */
@Timeout(60)
class StalledMasterIT {

    private static final String STALL_SECONDS = "1.5";

    @Test
    void lateLockIsGivenBackWhenDistlocksDeadlineRunsOutFirst() throws Exception {
        // Redisson would wait 3 s; distlock gives up after 0 + 500 ms.
        assertStalledAcquisitionLeavesNoLock(3_000, Duration.ofMillis(500), "the answer deadline of distlock");
    }

    @Test
    void lateLockIsGivenBackWhenRedissonsTimeoutRunsOutFirst() throws Exception {
        // Redisson gives up after 500 ms (RedisResponseTimeoutException), well before distlock's 0 + 5 s.
        assertStalledAcquisitionLeavesNoLock(500, Duration.ofSeconds(5), "Redisson's response timeout");
    }

    @Test
    void lateLockIsGivenBackWhenDistlockGaveUpFirstAndRedissonThenTimesOut() throws Exception {
        // distlock gives up after 0 + 300 ms and would give back a late lock; but Redisson's answer
        // is not a late success, it is a RedisResponseTimeoutException at 800 ms, before the master wakes up.
        assertStalledAcquisitionLeavesNoLock(800, Duration.ofMillis(300), "distlock, then Redisson,");
    }

    private void assertStalledAcquisitionLeavesNoLock(int redissonTimeoutMillis, Duration answerGrace, String whoGivesUp) throws Exception {
        try (RedisProcesses redis = new RedisProcesses("stalled")) {
            RedisProcess master = redis.server();
            Config config = new Config();
            config.useSingleServer().setAddress(master.url()).setTimeout(redissonTimeoutMillis).setRetryAttempts(0);
            RedissonClient client = Redisson.create(config);
            try {
                DistributedLocks locks = RedisLocks.builder(client).keyPrefix("stalled").answerGrace(answerGrace).build();
                String redisKey = EngineAccess.lockName(locks, "k", false);
                locks.exclusive("warm-up").run(() -> { });

                CompletableFuture<Object> stall = CompletableFuture.supplyAsync(() -> Resp.call(master.port(), 5_000, "DEBUG", "SLEEP", STALL_SECONDS));
                assertTrue(RedisProcesses.await(2_000, () -> !answersWithin(master, 50)), "the master stalls");

                AtomicBoolean ran = new AtomicBoolean();
                long start = System.nanoTime();
                LockServiceUnavailableException failure = assertThrows(LockServiceUnavailableException.class,
                        () -> locks.exclusive("k").waitTime(Duration.ZERO).run(() -> ran.set(true)));
                long failedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertFalse(ran.get());
                assertTrue(failure.getMessage().contains("did not run"), failure.getMessage());
                assertEquals("OK", stall.get(10, TimeUnit.SECONDS));

                // The request ran when the master woke up. Give a release a moment to arrive, then look.
                boolean gone = RedisProcesses.await(2_000, () -> Long.valueOf(0).equals(master.call("EXISTS", redisKey)));
                String figures = String.format("FIGURES stalled-master (%s gives up first): call failed after %d ms (%s); "
                                + "1.5 s stall over: lock key %s, PTTL %s ms, holder %s",
                        whoGivesUp, failedAfter, failure.getCause() == null ? "-" : failure.getCause().getClass().getSimpleName(),
                        gone ? "gone" : "STILL HELD", master.call("PTTL", redisKey), master.call("HGETALL", redisKey));
                System.out.println(figures);
                assertTrue(gone, "the call was told the method did not run, so no lock may stay behind in Redis; " + figures);
                locks.exclusive("k").waitTime(Duration.ofSeconds(1)).run(() -> ran.set(true));
                assertTrue(ran.get(), "the next caller gets the lock");
            } finally {
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    private static boolean answersWithin(RedisProcess node, int millis) {
        try {
            return "PONG".equals(Resp.call(node.port(), millis, "PING"));
        } catch (RuntimeException timedOut) {
            return false;
        }
    }
}
