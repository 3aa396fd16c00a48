package dev.distlock.internal.core;

import dev.distlock.DistributedLocks;
import dev.distlock.ForcedRelease;
import dev.distlock.LockLostException;
import dev.distlock.memory.InMemoryLockBackend;
import dev.distlock.testing.LostLocks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code DistributedLocks.forceRelease} in the engine: what it refuses, and that a holder in the
 * same JVM hears of the loss at once rather than at its next lease check (a third of a 30 s lease).
 * The cross-JVM and per-store behaviour is the contract suite's and {@code ForcedReleaseJvmIT}'s.
 */
@Timeout(60)
class ForcedReleaseTest {

    private final InMemoryLockBackend store = new InMemoryLockBackend(30_000);
    private final LostLocks lost = new LostLocks();
    private final DistributedLocks locks = DistributedLocks.builder(store).listener(lost).build();

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    void badRequestsAreRefusedWithAMessage() {
        IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
                () -> locks.forceRelease(" ", ForcedRelease.acknowledging("test")));
        assertTrue(blank.getMessage().contains("key"), blank.getMessage());
        assertThrows(NullPointerException.class, () -> locks.forceRelease("k", null));
        assertThrows(IllegalArgumentException.class, () -> ForcedRelease.acknowledging(" "));
        assertThrows(IllegalArgumentException.class, () -> ForcedRelease.acknowledging(null));
        assertEquals(List.of(), locks.forceRelease("nobody-holds-it", ForcedRelease.ifFenced()), "a free lock: nothing ended");
    }

    @Test
    void aHolderInThisJvmHearsOfItAtOnce() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> locks.exclusive("stuck").fenced().run(() -> {
            holding.countDown();
            try {
                letGo.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertTrue(holding.await(10, TimeUnit.SECONDS));
        long endedAt = System.nanoTime();

        assertEquals(1, locks.forceRelease("stuck", ForcedRelease.ifFenced()).size());

        while (lost.keys().isEmpty()) {
            assertTrue(System.nanoTime() - endedAt < TimeUnit.SECONDS.toNanos(5),
                    "the holder in this JVM was not told within 5 s (its next lease check is 10 s away)");
            Thread.sleep(10);
        }
        letGo.countDown();
        ExecutionException failure = assertThrows(ExecutionException.class, () -> holder.get(10, TimeUnit.SECONDS));
        assertTrue(failure.getCause() instanceof LockLostException, String.valueOf(failure.getCause()));
    }
}
