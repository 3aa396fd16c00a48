package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.testkit.backend.OtherOwner;

import dev.distlock.DistributedLocks;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Work returning a stage keeps the lock until the stage completes, from whatever thread completes it. */
@Timeout(30)
class CompletionStageTest {

    /** Long enough that the check 300 ms after completion still falls inside it on a slow machine. */
    private static final long WRITE_PAUSE_MILLIS = 2_500;

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final DistributedLocks locks = RedisLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("stage")).build();
    private final CompletableFuture<String> pending = new CompletableFuture<>();

    @Test
    void heldUntilTheStageCompletes() throws Exception {
        CompletionStage<String> result = locks.exclusive("job").stage(() -> pending);

        assertFalse(OtherOwner.gets(locks.exclusive("job")), "the work returned, but its stage is not done");
        assertFalse(result.toCompletableFuture().isDone());

        completeFromAnotherThread(() -> pending.complete("done"));

        assertEquals("done", result.toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertTrue(OtherOwner.gets(locks.exclusive("job")));
    }

    /**
     * Redis is told to hold back writes for a while, so the release cannot be acknowledged: the
     * returned stage must wait for it. Runs on a Redis of its own, since it stalls the server.
     */
    @Test
    void returnedStageCompletesOnlyAfterRelease() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        RedissonClient ownRedis = TestRedis.newClient(config -> config.useSingleServer().setAddress("redis://127.0.0.1:" + port));
        try {
            DistributedLocks ownLocks = RedisLocks.builder(ownRedis).keyPrefix(TestRedis.uniquePrefix("stage")).build();
            CompletableFuture<String> result = ownLocks.exclusive("job").stage(() -> pending).toCompletableFuture();

            pauseWrites(port, WRITE_PAUSE_MILLIS);
            completeFromAnotherThread(() -> pending.complete("done"));
            Thread.sleep(300);

            assertFalse(result.isDone(), "the stage completed while its release was still held back by Redis");
            assertEquals("done", result.get(WRITE_PAUSE_MILLIS + 10_000, TimeUnit.MILLISECONDS));
            assertFalse(ownRedis.getLock(EngineAccess.lockName(ownLocks, "job", false)).isLocked());
        } finally {
            ownRedis.shutdown();
            server.close();
        }
    }

    @Test
    void failedStagePropagatesItsExceptionAndReleases() throws Exception {
        IllegalStateException paymentDeclined = new IllegalStateException("payment declined");
        CompletionStage<String> result = locks.exclusive("job").stage(() -> pending);

        completeFromAnotherThread(() -> pending.completeExceptionally(paymentDeclined));

        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> result.toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertSame(paymentDeclined, failure.getCause());
        assertTrue(OtherOwner.gets(locks.exclusive("job")), "released after the failure");
    }

    @Test
    void timeoutFailsTheStageInsteadOfThrowing() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        try (OtherOwner holder = OtherOwner.holds(locks.exclusive("job"))) {
            CompletionStage<String> result = locks.exclusive("job").waitTime(Duration.ZERO).stage(() -> {
                ran.set(true);
                return pending;
            });

            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> result.toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertInstanceOf(LockTimeoutException.class, failure.getCause());
            assertNull(locks.exclusive("job").waitTime(Duration.ZERO).skipOnTimeout().stage(() -> {
                ran.set(true);
                return pending;
            }).toCompletableFuture().get(10, TimeUnit.SECONDS), "a skipped stage completes with null");
        }
        assertFalse(ran.get(), "the work ran without the lock");
    }

    /** {@code CLIENT PAUSE millis WRITE}: reads go on, writes (and scripts, so unlocks) wait. */
    private static void pauseWrites(int port, long millis) throws IOException {
        String pause = String.valueOf(millis);
        String command = "*4\r\n$6\r\nCLIENT\r\n$5\r\nPAUSE\r\n$" + pause.length() + "\r\n" + pause + "\r\n$5\r\nWRITE\r\n";
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(command.getBytes(StandardCharsets.US_ASCII));
            String reply = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            assertEquals("+OK", reply, "CLIENT PAUSE");
        }
    }

    private static void completeFromAnotherThread(Runnable completion) throws InterruptedException {
        Thread completer = new Thread(completion, "stage-completer");
        completer.start();
        completer.join(10_000);
    }
}
