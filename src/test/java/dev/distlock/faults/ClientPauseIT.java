package dev.distlock.faults;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.Resp;

import dev.distlock.DistributedLocks;
import dev.distlock.LockLostException;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.distlock.faults.Faults.millisSince;
import static dev.distlock.faults.Faults.seconds;
import static dev.distlock.faults.RedisKilledIT.assertFailedCleanly;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scenario 3: Redis stops answering for a while ({@code CLIENT PAUSE <ms> ALL}: connections stay
 * open, commands wait unanswered, as with a stalled server or a saturated network). An acquisition
 * gives up within {@code waitTime + answerGrace}, long before the pause ends; a release during the
 * pause completes after it or fails cleanly; no lock is left held after the pause beyond its lease.
 */
@Timeout(60)
class ClientPauseIT {

    /** Longer than waitTime + answerGrace + slack, so that "failed before the pause ended" is a real check. */
    private static final long PAUSE_MILLIS = 3_000;
    private static final Duration WAIT = Duration.ofMillis(500);
    private static final Duration ANSWER_GRACE = Duration.ofMillis(500);
    private static final long SLACK_MILLIS = 1_000;
    private static final int WATCHDOG_MILLIS = 3_000;

    @Test
    void anAcquisitionDuringThePauseGivesUpWithinWaitTimePlusAnswerGrace() throws Exception {
        int port = Ports.free();
        RedissonClient client = null;
        try (RedisProcess server = RedisProcess.start(port); Resp admin = Resp.connect(port, 10_000)) {
            client = Faults.client(port, config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS));
            DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("pause-acquire"))
                    .answerGrace(ANSWER_GRACE).build();
            String redisKey = EngineAccess.lockName(locks, "stock:A", false);
            locks.exclusive("stock:A").run(() -> { }); // connections are up

            assertEquals("OK", admin.command("CLIENT", "PAUSE", Long.toString(PAUSE_MILLIS), "ALL"));
            long pausedAt = System.nanoTime();
            AtomicBoolean ran = new AtomicBoolean();
            Throwable failure = failureOf(() -> locks.exclusive("stock:A").waitTime(WAIT).run(() -> ran.set(true)));
            long failedMillis = millisSince(pausedAt);

            assertFalse(ran.get(), "the work ran without the lock");
            assertFailedCleanly(failure, LockServiceUnavailableException.class, LockTimeoutException.class);
            assertTrue(failedMillis < WAIT.plus(ANSWER_GRACE).toMillis() + SLACK_MILLIS,
                    "failed only after " + failedMillis + " ms (pause " + PAUSE_MILLIS + " ms)");
            assertTrue(failedMillis < PAUSE_MILLIS, "failed only after the pause ended");

            // Bounded, but not what it should be: the attempt the client timed out still runs in Redis
            // when the pause ends and leaves a lock nobody holds for a whole watchdog lease (3 s here,
            // 30 s by default). Known bug, see ClientPauseLeftoverLockIT (disabled; it fails).
            LeftOver leftOver = afterThePause(port, redisKey, pausedAt);
            long reacquiredMillis = reacquire(locks, "stock:A", pausedAt);

            Faults.figure("pause-acquire", "CLIENT PAUSE " + PAUSE_MILLIS + " ALL: acquisition (waitTime " + WAIT.toMillis()
                    + " ms, answerGrace " + ANSWER_GRACE.toMillis() + " ms) failed after " + seconds(failedMillis) + " ("
                    + failure.getClass().getSimpleName() + "); " + leftOver + "; acquired again " + seconds(reacquiredMillis)
                    + " after the pause began");
            System.out.println("acquisition during the pause: " + failure);
        } finally {
            Faults.shutdown(client);
        }
    }

    @Test
    void aReleaseDuringThePauseCompletesAfterItOrFailsCleanlyAndTheLockEndsFree() throws Exception {
        int port = Ports.free();
        RedissonClient client = null;
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (RedisProcess server = RedisProcess.start(port); Resp admin = Resp.connect(port, 10_000)) {
            client = Faults.client(port, config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS));
            DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("pause-release"))
                    .answerGrace(ANSWER_GRACE).build();
            String redisKey = EngineAccess.lockName(locks, "stock:A", false);

            CountDownLatch leave = new CountDownLatch(1);
            Future<Throwable> holder = holdInside(pool, locks, "stock:A", leave);

            assertEquals("OK", admin.command("CLIENT", "PAUSE", Long.toString(PAUSE_MILLIS), "ALL"));
            long pausedAt = System.nanoTime();
            leave.countDown();
            Throwable releaseFailure = holder.get(30, TimeUnit.SECONDS);
            long releasedMillis = millisSince(pausedAt);
            if (releaseFailure != null) {
                assertFailedCleanly(releaseFailure, LockServiceUnavailableException.class, LockLostException.class);
            }
            assertTrue(releasedMillis < PAUSE_MILLIS + Faults.TIMEOUT_MILLIS * (Faults.RETRY_ATTEMPTS + 1) + SLACK_MILLIS + 2_000,
                    "the release took " + releasedMillis + " ms");

            LeftOver leftOver = afterThePause(port, redisKey, pausedAt);
            long reacquiredMillis = reacquire(locks, "stock:A", pausedAt);

            Faults.figure("pause-release", "CLIENT PAUSE " + PAUSE_MILLIS + " ALL during the release: the call returned after "
                    + seconds(releasedMillis) + " (" + (releaseFailure == null ? "released" : releaseFailure.getClass().getSimpleName())
                    + "); " + leftOver + "; acquired again " + seconds(reacquiredMillis) + " after the pause began");
            System.out.println("release during the pause: " + releaseFailure);
        } finally {
            pool.shutdownNow();
            Faults.shutdown(client);
        }
    }

    /**
     * A caller waits in Redis for a lock another client holds, and Redis stalls before the wait
     * runs out. Redisson then answers "not acquired", exactly as if the holder had kept the lock;
     * distlock asks Redis once more before blaming the holder, gets no answer within answerGrace,
     * and says that Redis failed. Without that question the caller gets LockTimeoutException
     * ("another holder still has it ... raise waitTime"), which sends it the wrong way.
     */
    @Test
    void aWaitThatRunsOutWhileRedisStallsBlamesRedisNotTheHolder() throws Exception {
        int port = Ports.free();
        RedissonClient holderClient = null;
        RedissonClient waiterClient = null;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (RedisProcess server = RedisProcess.start(port); Resp admin = Resp.connect(port, 10_000)) {
            holderClient = Faults.client(port, config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS));
            waiterClient = Faults.client(port, config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS));
            String prefix = TestRedis.uniquePrefix("pause-waiting");
            DistributedLocks holderJvm = RedisLocks.builder(holderClient).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();
            DistributedLocks waiterJvm = RedisLocks.builder(waiterClient).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();
            String redisKey = EngineAccess.lockName(holderJvm, "stock:A", false);

            CountDownLatch leave = new CountDownLatch(1);
            Future<Throwable> holder = holdInside(pool, holderJvm, "stock:A", leave);

            Duration waiterWait = Duration.ofMillis(1_000);
            AtomicBoolean waiterRan = new AtomicBoolean();
            Future<Throwable> waiter = pool.submit(() -> failureOf(() -> waiterJvm.exclusive("stock:A").waitTime(waiterWait)
                    .run(() -> waiterRan.set(true))));
            RedisKilledIT.awaitSubscriber(port, "redisson_lock__channel:{" + redisKey + "}");
            Thread.sleep(200); // subscribed, Redisson tries once more, then parks until a message or the wait's end
            assertEquals("OK", admin.command("CLIENT", "PAUSE", Long.toString(PAUSE_MILLIS), "ALL"));
            long pausedAt = System.nanoTime();

            Throwable failure = waiter.get(30, TimeUnit.SECONDS);
            long failedMillis = millisSince(pausedAt);
            assertFalse(waiterRan.get(), "the waiter's work ran without the lock");
            assertFailedCleanly(failure, LockServiceUnavailableException.class);
            assertTrue(failure.getMessage().contains("does not answer"), failure.getMessage());
            assertTrue(failedMillis < waiterWait.plus(ANSWER_GRACE).toMillis() + SLACK_MILLIS,
                    "failed only after " + failedMillis + " ms");
            assertTrue(failedMillis < PAUSE_MILLIS, "failed only after the pause ended");

            try (Resp resp = Resp.connect(port, (int) PAUSE_MILLIS + 5_000)) {
                resp.command("PING"); // answered once the pause is over
            }
            leave.countDown();
            Throwable holderFailure = holder.get(30, TimeUnit.SECONDS);
            if (holderFailure != null) {
                assertFailedCleanly(holderFailure, LockServiceUnavailableException.class, LockLostException.class);
            }
            Faults.figure("pause-waiting", "CLIENT PAUSE " + PAUSE_MILLIS + " ALL while a caller waited (waitTime "
                    + waiterWait.toMillis() + " ms, answerGrace " + ANSWER_GRACE.toMillis() + " ms): it failed "
                    + seconds(failedMillis) + " after the pause began (" + failure.getClass().getSimpleName() + ")");
            System.out.println("caller waiting when Redis stalled: " + failure);
        } finally {
            pool.shutdownNow();
            Faults.shutdown(holderClient, waiterClient);
        }
    }

    /**
     * Twin of the acquisition test on a client that waits 10 s for an answer: distlock still gives
     * up after {@code waitTime + answerGrace}, while Redisson's own {@code tryLock(500 ms)} on the same
     * client returns only once the pause is over. The bound comes from answerGrace, not from the
     * client's timeout.
     */
    @Test
    void answerGraceBoundsTheWaitWhereRedissonsOwnTryLockWaitsOutThePause() throws Exception {
        int port = Ports.free();
        RedissonClient client = null;
        try (RedisProcess server = RedisProcess.start(port); Resp admin = Resp.connect(port, 10_000)) {
            client = Faults.client(port, config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS)
                    .useSingleServer().setTimeout(10_000));
            DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("pause-twin"))
                    .answerGrace(ANSWER_GRACE).build();
            RLock raw = client.getLock(TestRedis.uniquePrefix("pause-twin-raw") + ":stock");
            locks.exclusive("stock:A").run(() -> { });
            raw.lock();
            raw.unlock();

            assertEquals("OK", admin.command("CLIENT", "PAUSE", Long.toString(PAUSE_MILLIS), "ALL"));
            long pausedAt = System.nanoTime();
            Throwable failure = failureOf(() -> locks.exclusive("stock:A").waitTime(WAIT).run(() -> { }));
            long distlockMillis = millisSince(pausedAt);
            assertFailedCleanly(failure, LockServiceUnavailableException.class, LockTimeoutException.class);
            assertTrue(distlockMillis < WAIT.plus(ANSWER_GRACE).toMillis() + SLACK_MILLIS, "distlock failed after " + distlockMillis + " ms");

            long rawStart = System.nanoTime();
            boolean rawAcquired = raw.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            long rawMillis = millisSince(rawStart);
            long rawEndedMillis = millisSince(pausedAt);
            if (rawAcquired) {
                raw.unlock();
            }
            assertTrue(rawEndedMillis >= PAUSE_MILLIS - 100, "raw Redisson returned " + rawEndedMillis
                    + " ms after the pause began, before it ended");

            // Here Redisson's attempt is still pending when distlock gives up; when it succeeds after
            // the pause, distlock gives that lock straight back (compare ClientPauseLeftoverLockIT).
            LeftOver leftOver = afterThePause(port, EngineAccess.lockName(locks, "stock:A", false), pausedAt);
            assertTrue(leftOver.fields().isEmpty() || leftOver.freeMillis() < PAUSE_MILLIS + SLACK_MILLIS, leftOver.toString());

            Faults.figure("pause-twin", "client timeout 10 s: distlock gave up after " + seconds(distlockMillis)
                    + " (" + leftOver + "); Redisson's tryLock(" + WAIT.toMillis() + " ms) on the same client took "
                    + seconds(rawMillis) + " (returned " + rawAcquired + " " + seconds(rawEndedMillis)
                    + " after the pause began, pause " + seconds(PAUSE_MILLIS) + ")");
        } finally {
            Faults.shutdown(client);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** What Redis holds for the key once the pause is over, and how long until it is free. */
    private record LeftOver(Map<String, String> fields, long pttl, long freeMillis) {
        @Override
        public String toString() {
            return fields.isEmpty() ? "no lock in Redis once the pause was over (free " + seconds(freeMillis) + " after it began)"
                    : "once the pause was over Redis held the lock for nobody (" + fields.values().iterator().next()
                    + " hold, PTTL " + pttl + " ms) until " + seconds(freeMillis) + " after the pause began";
        }
    }

    /**
     * Waits (a command on a new connection is answered only when the pause is over) and then until
     * the key is gone, which it must be within one watchdog lease.
     */
    private static LeftOver afterThePause(int port, String redisKey, long pausedAt) throws IOException, InterruptedException {
        try (Resp resp = Resp.connect(port, (int) PAUSE_MILLIS + 5_000)) {
            Map<String, String> fields = resp.hgetall(redisKey);
            long pttl = resp.pttl(redisKey);
            long afterPauseMillis = millisSince(pausedAt);
            assertTrue(fields.isEmpty() || pttl > 0 && pttl <= WATCHDOG_MILLIS, "a lock left without its lease: "
                    + fields + ", pttl " + pttl);
            while (resp.exists(redisKey)) {
                assertTrue(millisSince(pausedAt) < afterPauseMillis + WATCHDOG_MILLIS + SLACK_MILLIS,
                        "the lock is still held " + millisSince(pausedAt) + " ms after the pause began");
                Thread.sleep(20);
            }
            return new LeftOver(fields, pttl, millisSince(pausedAt));
        }
    }

    private static long reacquire(DistributedLocks locks, String key, long pausedAt) {
        AtomicBoolean ran = new AtomicBoolean();
        locks.exclusive(key).waitTime(Duration.ofSeconds(5)).run(() -> ran.set(true));
        assertTrue(ran.get());
        return millisSince(pausedAt);
    }

    /**
     * Takes the lock on {@code key} on a thread of {@code pool} and stays inside its method until
     * {@code leave} opens; returns once inside, with what the call threw in the end (or null).
     */
    private static Future<Throwable> holdInside(ExecutorService pool, DistributedLocks locks, String key, CountDownLatch leave) {
        CountDownLatch inside = new CountDownLatch(1);
        Future<Throwable> holder = pool.submit(() -> failureOf(() -> locks.exclusive(key).run(() -> {
            inside.countDown();
            Faults.await(leave, 30);
        })));
        Faults.await(inside, 10);
        return holder;
    }

    private static Throwable failureOf(Runnable call) {
        try {
            call.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
