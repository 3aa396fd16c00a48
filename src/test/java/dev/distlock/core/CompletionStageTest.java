package dev.distlock.core;

import dev.distlock.DistributedLocks;
import dev.distlock.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Work returning a stage keeps the lock until the stage completes, from whatever thread completes it. */
@Timeout(30)
class CompletionStageTest {

    private static RedissonClient redis;

    private final DistributedLocks locks = DistributedLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("stage")).build();
    private final CompletableFuture<String> pending = new CompletableFuture<>();

    @BeforeAll
    static void connect() {
        redis = TestRedis.newClient();
    }

    @AfterAll
    static void disconnect() {
        redis.shutdown();
    }

    @Test
    void heldUntilTheStageCompletes() throws Exception {
        CompletionStage<String> result = locks.exclusive("job").stage(() -> pending);

        assertFalse(OtherOwner.gets(locks.exclusive("job")), "the work returned, but its stage is not done");
        assertFalse(result.toCompletableFuture().isDone());

        completeFromAnotherThread(() -> pending.complete("done"));

        assertEquals("done", result.toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertTrue(OtherOwner.gets(locks.exclusive("job")));
    }

    @Test
    void returnedStageCompletesOnlyAfterRelease() throws Exception {
        CompletionStage<String> result = locks.exclusive("job").stage(() -> pending);
        // Asked at the moment the returned stage completes, without blocking the completing thread.
        CompletableFuture<Boolean> lockedWhenCompleted = result.toCompletableFuture()
                .thenCompose(value -> redis.getLock(locks.redisKey("job", false)).isLockedAsync().toCompletableFuture());

        completeFromAnotherThread(() -> pending.complete("done"));

        assertFalse(lockedWhenCompleted.get(10, TimeUnit.SECONDS), "the stage completed before the lock was released");
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

    private static void completeFromAnotherThread(Runnable completion) throws InterruptedException {
        Thread completer = new Thread(completion, "stage-completer");
        completer.start();
        completer.join(10_000);
    }
}
