package dev.distlock.transactions;

import dev.distlock.DistributedLocks;
import dev.distlock.LockInfo;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A second caller of a held lock in the same JVM, on a thread of its own: queued behind the holder
 * in the key's local queue, it gets the lock the moment the holder's chain gives it up (handed on,
 * without a round trip), and says at once whether the holder's guarded region was still open
 * then. Two holders at once show as such an entry.
 */
final class Contender {

    private final Thread thread;
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    /** What the region's check said as the contender got in: {@code null} when it was closed. */
    private final AtomicReference<String> overlap = new AtomicReference<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /**
     * Starts waiting for {@code key} and returns once it is queued.
     *
     * @param openRegion what of the holder's region is still open, {@code null} when none is
     */
    Contender(DistributedLocks locks, String key, Supplier<String> openRegion) {
        thread = new Thread(() -> {
            try {
                locks.exclusive(key).waitTime(Duration.ofSeconds(20)).run(() -> {
                    overlap.set(openRegion.get());
                    entered.countDown();
                });
            } catch (Throwable e) {
                failure.set(e);
            } finally {
                entered.countDown();
                done.countDown();
            }
        }, "contender-" + key);
        thread.setDaemon(true);
        thread.start();
        awaitQueued(locks, key);
    }

    private static void awaitQueued(DistributedLocks locks, String key) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            List<LockInfo> infos = locks.inspect(key, 10);
            if (infos.stream().anyMatch(info -> info.key().equals(key) && info.waitingHere() > 0)) {
                return;
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("the contender for " + key + " never queued");
    }

    /** Whether it got the lock within {@code wait}. */
    boolean entersWithin(Duration wait) throws InterruptedException {
        return entered.await(wait.toMillis(), TimeUnit.MILLISECONDS) && failure.get() == null;
    }

    /**
     * Waits until it has had the lock and let it go.
     *
     * @return what of the holder's region was open as it got in; {@code null} when nothing was
     */
    String overlap() throws InterruptedException {
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the contender did not get the lock within 30 s");
        }
        if (failure.get() != null) {
            throw new AssertionError("the contender failed", failure.get());
        }
        return overlap.get();
    }
}
