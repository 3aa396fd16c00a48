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
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.distlock.faults.Faults.millisSince;
import static dev.distlock.faults.Faults.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Scenario 1: Redis is killed (SIGKILL) while a caller holds a lock and runs its method. Nobody
 * hangs: the holder's release fails with an exception that says what happened, callers that try
 * to acquire during the outage fail within {@code waitTime + answerGrace} without running their
 * work, and once a server runs again on the same port the same clients take locks again.
 */
@Timeout(60)
class RedisKilledIT {

    private static final Duration WAIT = Duration.ofSeconds(1);
    private static final Duration ANSWER_GRACE = Duration.ofSeconds(1);
    /** The wait of a caller that is already waiting when Redis dies. */
    private static final Duration WAITING = Duration.ofSeconds(2);
    /** Scheduling on a loaded 2-core machine, plus one connect timeout. */
    private static final long SLACK_MILLIS = 3_000;
    /** How long the clients may take to find the restarted server. */
    private static final long RESUME_LIMIT_MILLIS = 15_000;

    @Test
    void killedMidCriticalSectionNobodyHangsAndTheSameClientsResume() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        RedissonClient holderClient = null;
        RedissonClient otherClient = null;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            holderClient = Faults.client(port);
            otherClient = Faults.client(port);
            String prefix = TestRedis.uniquePrefix("killed");
            DistributedLocks holderJvm = RedisLocks.builder(holderClient).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();
            DistributedLocks otherJvm = RedisLocks.builder(otherClient).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();
            String redisKey = EngineAccess.lockName(holderJvm, "stock:A", false);

            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch leave = new CountDownLatch(1);
            Future<Throwable> holder = pool.submit(() -> {
                try {
                    holderJvm.exclusive("stock:A").waitTime(WAIT).run(() -> {
                        inside.countDown();
                        Faults.await(leave, 30);
                    });
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Faults.await(inside, 10);
            try (Resp resp = Resp.connect(port, 2_000)) {
                assertEquals(1, resp.hgetall(redisKey).size(), "the holder's lock is in Redis");
            }

            // A caller of another JVM already waits for the lock in Redis (subscribed) when Redis dies.
            AtomicBoolean waitingRan = new AtomicBoolean();
            long waitingStart = System.nanoTime();
            Future<Throwable> waiting = pool.submit(() -> {
                try {
                    otherJvm.exclusive("stock:A").waitTime(WAITING).run(() -> waitingRan.set(true));
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            awaitSubscriber(port, "redisson_lock__channel:{" + redisKey + "}");

            server.kill();
            long killedAt = System.nanoTime();

            Throwable waitingFailure = waiting.get(30, TimeUnit.SECONDS);
            long waitingMillis = millisSince(waitingStart);
            long waitingAfterKillMillis = millisSince(killedAt);
            assertFalse(waitingRan.get(), "the waiting caller's work ran without the lock");
            // Redisson answers such a wait "not acquired", as if the holder still had the lock: the
            // caller must learn that Redis failed, not that it should raise its waitTime.
            assertFailedCleanly(waitingFailure, LockServiceUnavailableException.class);
            assertTrue(waitingMillis < WAITING.plus(ANSWER_GRACE).toMillis() + SLACK_MILLIS,
                    "the waiting caller failed only after " + waitingMillis + " ms");

            // Another JVM tries to acquire during the outage.
            AtomicBoolean otherRan = new AtomicBoolean();
            long otherStart = System.nanoTime();
            Throwable otherFailure = failureOf(() -> otherJvm.exclusive("stock:A").waitTime(WAIT).run(() -> otherRan.set(true)));
            long otherMillis = millisSince(otherStart);
            assertFalse(otherRan.get(), "the other JVM's work ran without the lock");
            assertFailedCleanly(otherFailure, LockServiceUnavailableException.class, LockTimeoutException.class);
            assertTrue(otherMillis < WAIT.plus(ANSWER_GRACE).toMillis() + SLACK_MILLIS,
                    "the other JVM's caller failed only after " + otherMillis + " ms");

            // A caller in the holder's JVM queues locally behind the holder and times out.
            AtomicBoolean localRan = new AtomicBoolean();
            long localStart = System.nanoTime();
            Throwable localFailure = failureOf(() -> holderJvm.exclusive("stock:A").waitTime(WAIT).run(() -> localRan.set(true)));
            long localMillis = millisSince(localStart);
            assertFalse(localRan.get(), "the local caller's work ran while the holder was inside");
            assertFailedCleanly(localFailure, LockServiceUnavailableException.class, LockTimeoutException.class);
            assertTrue(localMillis < WAIT.plus(ANSWER_GRACE).toMillis() + SLACK_MILLIS,
                    "the local caller failed only after " + localMillis + " ms");

            // The holder leaves its method: the release cannot reach Redis.
            long releaseStart = System.nanoTime();
            leave.countDown();
            Throwable holderFailure = holder.get(30, TimeUnit.SECONDS);
            long releaseMillis = millisSince(releaseStart);
            assertFailedCleanly(holderFailure, LockServiceUnavailableException.class, LockLostException.class);
            assertTrue(releaseMillis < WAIT.plus(ANSWER_GRACE).toMillis() + SLACK_MILLIS,
                    "the holder's release failed only after " + releaseMillis + " ms");

            // Redis comes back, empty, on the same port: the same clients take locks again.
            server = RedisProcess.start(port);
            long restartedAt = System.nanoTime();
            long otherResumedMillis = firstSuccess(otherJvm, "stock:A", restartedAt);
            long holderResumedMillis = firstSuccess(holderJvm, "stock:B", restartedAt);

            Faults.figure("kill", "holder release failed after " + seconds(releaseMillis) + " ("
                    + holderFailure.getClass().getSimpleName() + "); a caller already waiting (waitTime "
                    + seconds(WAITING.toMillis()) + ") failed " + seconds(waitingAfterKillMillis) + " after the kill ("
                    + waitingFailure.getClass().getSimpleName() + "); a new caller in another JVM failed after "
                    + seconds(otherMillis) + " (" + otherFailure.getClass().getSimpleName() + "), in the holder's JVM after "
                    + seconds(localMillis) + " (" + localFailure.getClass().getSimpleName() + ") [waitTime "
                    + seconds(WAIT.toMillis()) + ", answerGrace " + seconds(ANSWER_GRACE.toMillis()) + "]; the same clients resumed "
                    + seconds(otherResumedMillis) + " (other JVM) / " + seconds(holderResumedMillis)
                    + " (holder's JVM) after the restart");
            System.out.println("holder's release: " + holderFailure);
            System.out.println("waiting caller: " + waitingFailure);
            System.out.println("new caller, other JVM: " + otherFailure);
            System.out.println("new caller, holder's JVM: " + localFailure);
        } finally {
            pool.shutdownNow();
            Faults.shutdown(holderClient, otherClient);
            server.close();
        }
    }

    /** Waits until a caller waits in Redis: Redisson's waiters subscribe to the lock's channel. */
    static void awaitSubscriber(int port, String channel) throws IOException, InterruptedException {
        long since = System.nanoTime();
        try (Resp resp = Resp.connect(port, 2_000)) {
            while ((Long) ((List<?>) resp.command("PUBSUB", "NUMSUB", channel)).get(1) < 1) {
                assertTrue(millisSince(since) < 10_000, "nobody waits on " + channel);
                Thread.sleep(10);
            }
        }
    }

    /** Tries to lock until it works; the time from the restart to the first success. */
    private static long firstSuccess(DistributedLocks locks, String key, long restartedAt) {
        Throwable last = null;
        while (millisSince(restartedAt) < RESUME_LIMIT_MILLIS) {
            AtomicBoolean ran = new AtomicBoolean();
            try {
                locks.exclusive(key).waitTime(WAIT).run(() -> ran.set(true));
                assertTrue(ran.get());
                return millisSince(restartedAt);
            } catch (LockServiceUnavailableException | LockTimeoutException e) {
                last = e;
                Waits.sleep(50);
            }
        }
        throw new AssertionError("no lock within " + RESUME_LIMIT_MILLIS + " ms of the restart", last);
    }

    private static Throwable failureOf(Runnable call) {
        try {
            call.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    @SafeVarargs
    static void assertFailedCleanly(Throwable failure, Class<? extends Throwable>... expected) {
        assertNotNull(failure, "the call succeeded, but Redis was down");
        for (Class<? extends Throwable> type : expected) {
            if (type.isInstance(failure)) {
                return;
            }
        }
        fail("unexpected failure " + failure, failure);
    }
}
