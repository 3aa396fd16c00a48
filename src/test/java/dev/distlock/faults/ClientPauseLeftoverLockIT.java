package dev.distlock.faults;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.Resp;

import dev.distlock.DistributedLocks;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.distlock.faults.Faults.millisSince;
import static dev.distlock.faults.RedisKilledIT.assertFailedCleanly;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Found by scenario 3 (see {@link ClientPauseIT}), now fixed; this test keeps it fixed.
 *
 * <p>Redis stalls (here {@code CLIENT PAUSE}) while a caller acquires. The client's own response
 * timeout (1 s here, {@code distlock.redis.timeout} = 3 s by default) runs out before Redis answers,
 * so Redisson fails the attempt and the caller gets {@link LockServiceUnavailableException}, "the
 * method did not run". But the acquire script is already in Redis's input buffer: when the stall
 * ends, Redis runs it and grants the lock — with a full watchdog lease (30 s by default) — to an
 * owner id nobody uses any more. Before the fix, every JVM was then locked out of the key for the
 * whole lease after Redis had recovered (the test failed 3 of 3 times: Redis still held the lock
 * 4.5 s after the pause began, PTTL 28,476 ms). Now a failed acquisition sweeps its id
 * ({@code LeaseWatch.sweep}): the lock is released again as soon as Redis runs it.
 */
@Timeout(60)
class ClientPauseLeftoverLockIT {

    private static final long PAUSE_MILLIS = 3_000;
    private static final Duration WAIT = Duration.ofMillis(500);
    private static final Duration ANSWER_GRACE = Duration.ofMillis(500);
    /** After the pause: time for Redis to run what waited and for a give-back to arrive. */
    private static final long GIVE_BACK_MILLIS = 1_500;

    @Test
    void anAcquisitionGivenUpDuringAStallLeavesNoLockOnceRedisAnswersAgain() throws Exception {
        int port = Ports.free();
        RedissonClient client = null;
        RedissonClient otherClient = null;
        try (RedisProcess server = RedisProcess.start(port); Resp admin = Resp.connect(port, 10_000)) {
            client = Faults.client(port);          // Redisson's default watchdog lease: 30 s
            otherClient = Faults.client(port);
            String prefix = TestRedis.uniquePrefix("pause-leftover");
            DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();
            DistributedLocks otherJvm = RedisLocks.builder(otherClient).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();
            String redisKey = EngineAccess.lockName(locks, "stock:A", false);
            locks.exclusive("stock:A").run(() -> { });
            otherJvm.exclusive("stock:A").run(() -> { });

            assertEquals("OK", admin.command("CLIENT", "PAUSE", Long.toString(PAUSE_MILLIS), "ALL"));
            long pausedAt = System.nanoTime();
            AtomicBoolean ran = new AtomicBoolean();
            Throwable failure = null;
            try {
                locks.exclusive("stock:A").waitTime(WAIT).run(() -> ran.set(true));
            } catch (Throwable t) {
                failure = t;
            }
            assertFalse(ran.get());
            assertFailedCleanly(failure, LockServiceUnavailableException.class, LockTimeoutException.class);

            try (Resp resp = Resp.connect(port, (int) PAUSE_MILLIS + 5_000)) {
                resp.command("PING"); // answered once the pause is over
                long pauseOverMillis = millisSince(pausedAt);
                while (resp.exists(redisKey)) {
                    if (millisSince(pausedAt) > pauseOverMillis + GIVE_BACK_MILLIS) {
                        Map<String, String> fields = resp.hgetall(redisKey);
                        long pttl = resp.pttl(redisKey);
                        Throwable otherFailure = null;
                        try {
                            otherJvm.exclusive("stock:A").waitTime(Duration.ZERO).run(() -> { });
                        } catch (Throwable t) {
                            otherFailure = t;
                        }
                        fail("The caller was told '" + failure.getMessage() + "', yet " + millisSince(pausedAt)
                                + " ms after the pause began (it lasted " + PAUSE_MILLIS + " ms) Redis still holds the lock for it: "
                                + fields + ", PTTL " + pttl + " ms; another JVM trying now gets " + otherFailure);
                    }
                    Thread.sleep(20);
                }
            }
        } finally {
            Faults.shutdown(client, otherClient);
        }
    }
}
