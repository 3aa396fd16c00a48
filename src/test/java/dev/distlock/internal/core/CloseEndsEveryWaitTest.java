package dev.distlock.internal.core;

import dev.distlock.DistributedLocks;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.memory.InMemoryLockBackend;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.testkit.backend.DelegatingBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Closing the engine ends every wait (issue 36, item 6). A caller waits for its release, and does
 * not give up on an interrupt (a lock must not be left behind); but once the engine is closed —
 * the application stops — an answer that will never come (a store gone silent, a confirmation
 * that the closed lease watch dropped) must not keep the caller's thread forever: the undeploy
 * would hang on it. After the close, the wait lasts one answer grace at most, then the caller is
 * told the lock ends with its lease.
 */
@Timeout(60)
class CloseEndsEveryWaitTest {

    /** The in-memory store, whose releases are never answered once {@code silent}. */
    static final class Silent extends DelegatingBackend {
        volatile boolean silent;

        Silent() {
            super(new InMemoryLockBackend(30_000));
        }

        @Override
        public String displayName() {
            return "a silent store";
        }

        @Override
        public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
            BackendLease lease = super.acquire(name, policy, deadlineNanos);
            return lease == null ? null : new BackendLease() {
                @Override
                public long fencingToken() {
                    return lease.fencingToken();
                }

                @Override
                public boolean renewed() {
                    return lease.renewed();
                }

                @Override
                public CompletableFuture<Boolean> isHeld() {
                    return silent ? new CompletableFuture<>() : lease.isHeld();
                }

                @Override
                public CompletableFuture<Boolean> release() {
                    return silent ? new CompletableFuture<>() : lease.release();
                }
            };
        }
    }

    @Test
    void aReleaseThatIsNeverAnsweredEndsWithTheEngine() throws Exception {
        Silent store = new Silent();
        DistributedLocks locks = DistributedLocks.builder(store).answerGrace(Duration.ofMillis(500)).build();
        CountDownLatch working = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> caller = CompletableFuture.runAsync(() -> locks.exclusive("k").run(() -> {
            working.countDown();
            try {
                finish.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertTrue(working.await(10, TimeUnit.SECONDS));
        store.silent = true;
        finish.countDown();
        assertThrows(TimeoutException.class, () -> caller.get(1, TimeUnit.SECONDS), "it waits for its release while the engine runs");

        long closing = System.nanoTime();
        locks.close();
        ExecutionException ended = assertThrows(ExecutionException.class, () -> caller.get(10, TimeUnit.SECONDS),
                "the caller still waited 10 s after the engine was closed");
        assertInstanceOf(LockServiceUnavailableException.class, ended.getCause());
        assertTrue(ended.getCause().getMessage().contains("closed"), ended.getCause().getMessage());
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing);
        assertFalse(waited > 5_000, "ended " + waited + " ms after the close");
    }
}
