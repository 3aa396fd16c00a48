package dev.distlock.testkit.backend;

import dev.distlock.DistributedLocks;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Another owner of locks than the test's own invocation chain: a thread of its own, so the engine
 * gives it its own owner id. Tests use it to probe whether a lock is free, or to hold one.
 */
public final class OtherOwner implements AutoCloseable {

    private static final long PATIENCE_SECONDS = 15;

    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private OtherOwner() {
    }

    /**
     * Tries {@code call} once (wait time zero) from another thread.
     *
     * @return whether that owner got the lock (and gave it straight back)
     */
    public static boolean gets(DistributedLocks.LockCall call) {
        CompletableFuture<Boolean> attempt = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                Boolean ran = call.waitTime(Duration.ZERO).skipOnTimeout().get(() -> Boolean.TRUE);
                attempt.complete(ran != null);
            } catch (Throwable e) {
                attempt.completeExceptionally(e);
            }
        }, "other-owner-probe");
        thread.start();
        return attempt.orTimeout(PATIENCE_SECONDS, TimeUnit.SECONDS).join();
    }

    /** Takes {@code call}'s lock in another thread and keeps it until {@link #close()}. */
    public static OtherOwner holds(DistributedLocks.LockCall call) throws InterruptedException {
        OtherOwner owner = new OtherOwner();
        Thread thread = new Thread(() -> {
            try {
                call.call(() -> {
                    owner.held.countDown();
                    owner.release.await();
                    return null;
                });
                owner.done.complete(null);
            } catch (Throwable e) {
                owner.done.completeExceptionally(e);
            }
        }, "other-owner-holder");
        thread.start();
        boolean took = owner.held.await(PATIENCE_SECONDS, TimeUnit.SECONDS);
        if (!took) {
            owner.release.countDown();
        }
        assertTrue(took, "the other owner did not get the lock in time: " + owner.done);
        return owner;
    }

    /** Lets go of the lock and waits until it is released; fails if the holder failed. */
    @Override
    public void close() {
        release.countDown();
        done.orTimeout(PATIENCE_SECONDS, TimeUnit.SECONDS).join();
    }
}
