package dev.distlock.internal.cdi;

import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeldTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.auto.AddBeanClasses;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RLock;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semantics 4: a method returning {@code CompletionStage} keeps its lock until the stage
 * completes, and the lock is released from whatever thread completes it.
 */
@DistlockWeldTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@AddBeanClasses(CompletionStageLockTest.Jobs.class)
class CompletionStageLockTest {

    private static final long SLACK_SECONDS = 10;

    @ApplicationScoped
    public static class Jobs {
        private final AtomicInteger runs = new AtomicInteger();

        /** Hands back the caller's future: the test decides when and how the work completes. */
        @Locked("job:{id}")
        public CompletionStage<String> start(String id, CompletableFuture<String> work) {
            runs.incrementAndGet();
            return work;
        }

        @Locked(value = "job:{id}", waitTime = 300)
        public CompletableFuture<String> startBriefly(String id, CompletableFuture<String> work) {
            runs.incrementAndGet();
            return work;
        }

        int runs() {
            return runs.get();
        }
    }

    @Inject
    Jobs jobs;
    @Inject
    DistlockSetup distlock;

    private final ExecutorService completer = Executors.newSingleThreadExecutor();

    @AfterAll
    void stopThreads() {
        completer.shutdownNow();
    }

    @Test
    void lockIsHeldUntilTheStageCompletesThenReleased() throws Exception {
        String key = lockKey("job:ok");
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletionStage<String> stage = jobs.start("ok", work);

        assertTrue(Probe.isLocked(key), "the method returned but its work is not done: still locked");
        completer.submit(() -> work.complete("done"));

        assertEquals("done", stage.toCompletableFuture().get(SLACK_SECONDS, TimeUnit.SECONDS));
        assertFalse(Probe.isLocked(key), "released when the stage completed, from the completing thread");
    }

    @Test
    void failedStageReleasesTheLockAndKeepsItsException() throws Exception {
        String key = lockKey("job:failing");
        IOException failure = new IOException("disk full");
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletionStage<String> stage = jobs.start("failing", work);

        assertTrue(Probe.isLocked(key));
        completer.submit(() -> work.completeExceptionally(failure));

        ExecutionException e = assertThrows(ExecutionException.class,
                () -> stage.toCompletableFuture().get(SLACK_SECONDS, TimeUnit.SECONDS));
        assertSame(failure, e.getCause());
        assertFalse(Probe.isLocked(key));
    }

    @Test
    void timeoutGivesAFailedStageAndDoesNotRunTheMethod() {
        String key = lockKey("job:busy");
        RLock other = Probe.client().getLock(key);
        other.lock();
        try {
            int before = jobs.runs();
            CompletableFuture<String> stage = jobs.startBriefly("busy", new CompletableFuture<>());
            ExecutionException e = assertThrows(ExecutionException.class, () -> stage.get(SLACK_SECONDS, TimeUnit.SECONDS));
            assertInstanceOf(LockTimeoutException.class, e.getCause());
            assertEquals(before, jobs.runs());
        } finally {
            other.unlock();
        }
    }

    private String lockKey(String key) {
        return distlock.settings().keyPrefix() + ":lock:" + key;
    }
}
