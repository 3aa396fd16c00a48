package dev.distlock.faults;

import dev.distlock.redis.RedisLocks;
import dev.distlock.redis.UnseededTokens;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static dev.distlock.faults.Faults.millisSince;
import static dev.distlock.faults.Faults.seconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scenario 2: Redis restarts from an empty dataset (SIGKILL, then a fresh server without
 * persistence on the same port) while a lock is held. The lock is gone, so another JVM takes it
 * while the old holder is still inside: that is the documented limit of a Redis lock
 * (docs/fencing-and-failures.md, "Under failure"). What distlock must still get right: the old holder learns it (its release throws
 * {@link LockLostException}), neither its watchdog nor its release touch the new holder's lock,
 * and fencing tokens issued after the restart are larger than those before.
 */
@Timeout(60)
class RedisRestartedEmptyIT {

    /** Short, so the old holder's watchdog runs every second. */
    private static final int WATCHDOG_MILLIS = 3_000;
    private static final Duration WAIT = Duration.ofSeconds(1);
    private static final Duration ANSWER_GRACE = Duration.ofSeconds(1);
    private static final long NEW_HOLDER_LIMIT_MILLIS = 15_000;
    /**
     * The fresh server logs every command it runs, with its arguments, from its first moment:
     * that is how the test sees the old holder's watchdog run against it.
     */
    private static final String[] LOG_EVERY_COMMAND = {"--slowlog-log-slower-than", "0", "--slowlog-max-len", "100000"};

    @Test
    void holderLearnsItLostTheLockAndItsWatchdogDoesNotBringItBack() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        RedissonClient oldClient = null;
        RedissonClient newClient = null;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            oldClient = Faults.client(port, config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS));
            newClient = Faults.client(port, config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS));
            String prefix = TestRedis.uniquePrefix("empty");
            DistributedLocks oldJvm = RedisLocks.builder(oldClient).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();
            DistributedLocks newJvm = RedisLocks.builder(newClient).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();
            String redisKey = EngineAccess.lockName(oldJvm, "stock:A", false);

            CountDownLatch oldInside = new CountDownLatch(1);
            CountDownLatch oldLeave = new CountDownLatch(1);
            Future<Throwable> oldHolder = pool.submit(failureOf(() -> oldJvm.exclusive("stock:A").waitTime(WAIT).run(() -> {
                oldInside.countDown();
                Faults.await(oldLeave, 30);
            })));
            Faults.await(oldInside, 10);
            String oldField;
            try (Resp resp = Resp.connect(port, 2_000)) {
                Map<String, String> before = resp.hgetall(redisKey);
                assertEquals(1, before.size(), "the old holder's lock: " + before);
                oldField = before.keySet().iterator().next();
            }

            server.kill();
            server = RedisProcess.start(port, LOG_EVERY_COMMAND);
            long restartedAt = System.nanoTime();

            // Another JVM takes the lock while the old holder is still inside.
            CountDownLatch newInside = new CountDownLatch(1);
            CountDownLatch newLeave = new CountDownLatch(1);
            AtomicLong newHolderAfterMillis = new AtomicLong();
            Future<Throwable> newHolder = pool.submit(failureOf(() -> untilAcquired(restartedAt,
                    () -> newJvm.exclusive("stock:A").waitTime(WAIT).run(() -> {
                        newHolderAfterMillis.set(millisSince(restartedAt));
                        newInside.countDown();
                        Faults.await(newLeave, 30);
                    }))));
            Faults.await(newInside, 20);
            assertFalse(oldHolder.isDone(), "the old holder is still inside");

            try (Resp resp = Resp.connect(port, 2_000)) {
                String newField = onlyField(resp.hgetall(redisKey));
                assertFalse(newField.equals(oldField));

                // The old holder's watchdog runs against the new server (seen in its command log) ...
                long renewalsSeen = awaitRenewal(resp, redisKey, oldField, restartedAt);
                // ... and brings nothing back: Redisson renews only 'if hexists(key, field)'.
                Map<String, String> fields = resp.hgetall(redisKey);
                long pttl = resp.pttl(redisKey);
                assertEquals(Map.of(newField, "1"), fields, "only the new holder's lock");
                assertTrue(pttl > 0 && pttl <= WATCHDOG_MILLIS, "the new holder's watchdog lease, pttl " + pttl);
                // One more renewal period: the old watchdog has stopped (it found its field gone).
                Thread.sleep(WATCHDOG_MILLIS / 3 + 500);
                long renewalsLater = renewals(resp, redisKey, oldField);
                assertEquals(renewalsSeen, renewalsLater, "the old holder's watchdog went on renewing a lock it does not have");
                commandsWithArgument(resp, oldField).forEach(command -> System.out.println("old holder's command on the new server: "
                        + command.subList(0, 1) + " ... " + command.subList(2, command.size())));
                assertEquals(Map.of(newField, "1"), resp.hgetall(redisKey), "only the new holder's lock");

                // The old holder leaves: its release reports the loss and leaves the new holder's lock alone.
                long releaseStart = System.nanoTime();
                oldLeave.countDown();
                Throwable oldFailure = oldHolder.get(20, TimeUnit.SECONDS);
                long releaseMillis = millisSince(releaseStart);
                assertInstanceOf(LockLostException.class, oldFailure, "the old holder's release");
                assertEquals(Map.of(newField, "1"), resp.hgetall(redisKey), "the old holder's release removed the new holder's lock");

                // So a third caller still finds the lock taken.
                AtomicBoolean thirdRan = new AtomicBoolean();
                assertInstanceOf(LockTimeoutException.class, failureOf(() -> oldJvm.exclusive("stock:A")
                        .waitTime(Duration.ZERO).run(() -> thirdRan.set(true))).call());
                assertFalse(thirdRan.get());

                newLeave.countDown();
                assertNull(newHolder.get(20, TimeUnit.SECONDS), "the new holder's call");
                assertFalse(resp.exists(redisKey), "released");

                Faults.figure("restart-empty", "another JVM took the lock " + seconds(newHolderAfterMillis.get())
                        + " after the empty restart while the old holder was inside; the old holder's watchdog checked its field "
                        + renewalsSeen + "x on the new server (and stopped: still " + renewalsLater + "x one period later)"
                        + " and brought nothing back (hash = the new holder's field only, PTTL " + pttl + " ms <= watchdog "
                        + WATCHDOG_MILLIS + " ms); the old holder's release threw " + oldFailure.getClass().getSimpleName()
                        + " after " + seconds(releaseMillis) + " and left the new lock alone");
                System.out.println("old holder's release: " + oldFailure);
            }
        } finally {
            pool.shutdownNow();
            Faults.shutdown(oldClient, newClient);
            server.close();
        }
    }

    /**
     * Twin of the test above without the owner check: a hand-made lock (SET NX PX, released by
     * DEL, as the classic recipe goes). After the same empty restart the old holder's release
     * deletes the new holder's lock, and a third caller gets in while the new holder is inside.
     */
    @Test
    void withoutTheOwnerCheckTheOldHoldersReleaseFreesTheNewHoldersLock() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        try {
            String key = TestRedis.uniquePrefix("naive") + ":lock";
            try (Resp old = Resp.connect(port, 2_000)) {
                assertEquals("OK", old.command("SET", key, "old", "NX", "PX", "30000"));
            }
            server.kill();
            server = RedisProcess.start(port);
            try (Resp resp = Resp.connect(port, 2_000)) {
                assertEquals("OK", resp.command("SET", key, "new", "NX", "PX", "30000"), "the new holder");
                resp.command("DEL", key); // the old holder's release, unchecked
                assertEquals("OK", resp.command("SET", key, "third", "NX", "PX", "30000"),
                        "a third holder got in while the new one was inside");
            }
        } finally {
            server.close();
        }
    }

    /** Fenced: the token taken after the empty restart is larger than the one taken before. */
    @Test
    void fencingTokensKeepRisingAcrossAnEmptyRestart() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        RedissonClient oldClient = null;
        RedissonClient newClient = null;
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            oldClient = Faults.client(port, config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS));
            newClient = Faults.client(port, config -> config.setLockWatchdogTimeout(WATCHDOG_MILLIS));
            String prefix = TestRedis.uniquePrefix("empty-fenced");
            DistributedLocks oldJvm = RedisLocks.builder(oldClient).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();
            DistributedLocks newJvm = RedisLocks.builder(newClient).keyPrefix(prefix).answerGrace(ANSWER_GRACE).build();

            for (int i = 0; i < 3; i++) { // a few earlier holders
                oldJvm.exclusive("stock:F").fenced().run(() -> { });
            }
            AtomicLong oldToken = new AtomicLong();
            CountDownLatch oldInside = new CountDownLatch(1);
            CountDownLatch oldLeave = new CountDownLatch(1);
            Future<Throwable> oldHolder = pool.submit(failureOf(() -> oldJvm.exclusive("stock:F").fenced().run(() -> {
                oldToken.set(oldJvm.context().fencingToken().orElseThrow());
                oldInside.countDown();
                Faults.await(oldLeave, 30);
            })));
            Faults.await(oldInside, 10);

            server.kill();
            server = RedisProcess.start(port);
            long restartedAt = System.nanoTime();

            AtomicLong newToken = new AtomicLong();
            untilAcquired(restartedAt, () -> newJvm.exclusive("stock:F").fenced().waitTime(WAIT)
                    .run(() -> newToken.set(newJvm.context().fencingToken().orElseThrow())));
            assertTrue(newToken.get() > oldToken.get(), "token after the restart " + newToken + ", before " + oldToken);

            oldLeave.countDown();
            assertInstanceOf(LockLostException.class, oldHolder.get(20, TimeUnit.SECONDS), "the old holder's release");

            Faults.figure("restart-empty-fenced", "token before the empty restart " + oldToken + ", after " + newToken
                    + " (+" + (newToken.get() - oldToken.get()) + ", i.e. the µs Redis's clock moved on); old holder's release: LockLostException");
        } finally {
            pool.shutdownNow();
            Faults.shutdown(oldClient, newClient);
            server.close();
        }
    }

    /** Twin: distlock's own path with its seeding switched off counts again from 1 after the empty restart. */
    @Test
    void withoutSeedingTokensGoBackAfterAnEmptyRestart() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        RedissonClient client = null;
        DistributedLocks unseeded = null;
        try {
            client = Faults.client(port);
            DistributedLocks locks = UnseededTokens.locks(client, TestRedis.uniquePrefix("unseeded-fenced"), ANSWER_GRACE);
            unseeded = locks;
            AtomicLong before = new AtomicLong();
            for (int i = 0; i < 3; i++) {
                locks.exclusive("stock:G").fenced().run(() -> before.set(locks.context().fencingToken().orElseThrow()));
            }
            server.kill();
            server = RedisProcess.start(port);
            long restartedAt = System.nanoTime();
            AtomicLong after = new AtomicLong();
            untilAcquired(restartedAt, () -> locks.exclusive("stock:G").fenced().waitTime(WAIT)
                    .run(() -> after.set(locks.context().fencingToken().orElseThrow())));
            assertTrue(after.get() < before.get(), "unseeded, the token after the restart " + after + " should fall below " + before);
            Faults.figure("restart-empty-fenced-twin", "distlock with its seeding switched off: token " + before
                    + " before the empty restart, " + after + " after");
        } finally {
            if (unseeded != null) {
                unseeded.close();
            }
            Faults.shutdown(client);
            server.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Retries while the client has not found the restarted server yet; the work runs at most once. */
    private static void untilAcquired(long restartedAt, Runnable lockedCall) {
        while (true) {
            try {
                lockedCall.run();
                return;
            } catch (LockServiceUnavailableException e) {
                if (millisSince(restartedAt) > NEW_HOLDER_LIMIT_MILLIS) {
                    throw e;
                }
                Waits.sleep(50);
            }
        }
    }

    private static String onlyField(Map<String, String> hash) {
        assertEquals(1, hash.size(), "one holder: " + hash);
        return hash.keySet().iterator().next();
    }

    /**
     * Waits until the server's command log shows the watchdog's check of {@code field} (Redisson's
     * renewal script runs {@code hexists key field}, then {@code pexpire} only if it is there).
     *
     * @return how many such checks ran
     */
    private static long awaitRenewal(Resp resp, String key, String field, long since) throws IOException, InterruptedException {
        while (true) {
            long seen = renewals(resp, key, field);
            if (seen > 0) {
                return seen;
            }
            assertTrue(millisSince(since) < 4 * WATCHDOG_MILLIS, "the old holder's watchdog never reached the new server");
            Thread.sleep(50);
        }
    }

    /** Commands in the server's log (SLOWLOG, every command since it started) with this argument. */
    private static long renewals(Resp resp, String key, String field) throws IOException {
        return commandsWithArgument(resp, field).stream().filter(command -> command.equals(List.of("hexists", key, field))).count();
    }

    private static List<List<?>> commandsWithArgument(Resp resp, String argument) throws IOException {
        List<?> entries = (List<?>) resp.command("SLOWLOG", "GET", "-1");
        List<List<?>> commands = new ArrayList<>();
        for (Object entry : entries) {
            List<?> command = (List<?>) ((List<?>) entry).get(3);
            if (command.contains(argument)) {
                commands.add(0, command); // SLOWLOG lists the latest first
            }
        }
        return commands;
    }

    private static Callable<Throwable> failureOf(Runnable call) {
        return () -> {
            try {
                call.run();
                return null;
            } catch (Throwable t) {
                return t;
            }
        };
    }
}
