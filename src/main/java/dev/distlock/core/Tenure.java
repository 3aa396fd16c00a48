package dev.distlock.core;

import dev.distlock.LocalHandoff;
import org.redisson.api.RLock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;

/**
 * One unbroken holding of a Redis lock by this JVM, under an id of its own. Local holders of an
 * exclusive or write lock may pass a tenure from one to the next without Redis (see
 * {@link LocalHandoff}); Redis sees one acquisition and one release for the whole run.
 *
 * <p>A holder that passed the lock on still learns whether it held it to the end: it waits for a
 * <em>confirmation</em>, a check in Redis sent after it finished. Confirmations are shared: one
 * check, sent at most every {@link #CONFIRM_INTERVAL_NANOS}, answers for every holder that finished
 * before it was sent, and the final release in Redis answers for those still waiting.
 */
final class Tenure {

    /** No check sent yet; shared by all tenures, since a completed future cannot change. */
    private static final CompletableFuture<Void> NO_CHECKS = CompletableFuture.completedFuture(null);

    /** The least time between two checks of one tenure. */
    static final long CONFIRM_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    final RLock lock;
    /** The engine's timer: delayed checks, and the watch this tenure is in while held. */
    private final LeaseWatch watch;
    /** The id Redisson knows the holder by, in place of a thread id. */
    final long redisId;
    /** Renewed by Redisson's watchdog; only such a tenure can be passed on. */
    final boolean watchdog;
    /** The fencing token of the acquisition, kept by every local holder it is passed to; 0 for none. */
    final long fencingToken;
    final long acquiredAtNanos = System.nanoTime();
    /** Guarded by the key's local permit: how many times the tenure has been passed on. */
    int handoffs;
    /** Found gone (or unconfirmable) by a check: it is not passed on again. */
    volatile boolean broken;
    /** When Redis last confirmed the tenure holds the lock; for {@link LeaseWatch}. */
    volatile long lastConfirmedNanos;
    private final AtomicBoolean lossReported = new AtomicBoolean();
    /** Its entry in the {@link LeaseWatch}, removed on release. */
    volatile LeaseWatch.Watched watched;

    // Guarded by this.
    /** The confirmation the next check will give; {@code null} if nobody waits for one. */
    private CompletableFuture<Boolean> nextConfirmation;
    /** A check is in Redis, or scheduled: the next is sent after it. */
    private boolean checking;
    private long lastCheckNanos;
    /** Completes when every check sent so far has been answered. */
    private CompletableFuture<?> checks = NO_CHECKS;
    private boolean released;

    Tenure(LeaseWatch watch, RLock lock, long redisId, boolean watchdog, long fencingToken) {
        this.watch = watch;
        this.lock = lock;
        this.redisId = redisId;
        this.watchdog = watchdog;
        this.fencingToken = fencingToken;
    }

    /**
     * Whether the lock is still held now, for a holder that has finished and passed it on:
     * {@code true}, {@code false} when it was lost, or a failure when Redis could not say.
     */
    CompletableFuture<Boolean> confirm() {
        synchronized (this) {
            CompletableFuture<Boolean> confirmation = nextConfirmation;
            if (confirmation == null) {
                confirmation = new CompletableFuture<>();
                nextConfirmation = confirmation;
                if (!checking) {
                    checking = true;
                    scheduleCheck(); // may send it at once, from this thread
                }
            }
            return confirmation;
        }
    }

    /** Guarded by this. */
    private void scheduleCheck() {
        long delay = lastCheckNanos + CONFIRM_INTERVAL_NANOS - System.nanoTime();
        if (lastCheckNanos == 0 || delay <= 0) {
            CompletableFuture.runAsync(this::check, Runnable::run);
        } else {
            watch.later(this::check, delay);
        }
    }

    private void check() {
        CompletableFuture<Boolean> answers;
        CompletableFuture<Boolean> check;
        synchronized (this) {
            answers = nextConfirmation;
            nextConfirmation = null;
            if (answers == null) { // the release in Redis took over
                checking = false;
                return;
            }
            lastCheckNanos = System.nanoTime();
            try {
                check = lock.isHeldByThreadAsync(redisId).toCompletableFuture();
            } catch (RuntimeException e) {
                check = CompletableFuture.failedFuture(e);
            }
            checks = CompletableFuture.allOf(checks, check);
        }
        check.whenComplete((held, error) -> {
            if (error != null || !Boolean.TRUE.equals(held)) {
                broken = true;
            }
            synchronized (this) {
                if (nextConfirmation != null && !released) {
                    scheduleCheck();
                } else {
                    checking = false;
                }
            }
            complete(answers, held, error);
        });
    }

    /** @return true the first time only: a loss is told once per tenure */
    boolean markLossReported() {
        return lossReported.compareAndSet(false, true);
    }

    synchronized boolean isReleased() {
        return released;
    }

    /**
     * Releases the lock in Redis, once every check sent before is answered (a release overtaking
     * a check would make the check report a loss that did not happen). Its outcome confirms, or
     * not, the holders still waiting for a confirmation.
     */
    CompletableFuture<Void> unlock() {
        CompletableFuture<Boolean> answers;
        CompletableFuture<?> before;
        synchronized (this) {
            released = true;
            answers = nextConfirmation;
            nextConfirmation = null;
            before = checks;
        }
        watch.forget(watched);
        CompletableFuture<Void> unlocking = before.isDone()
                ? sendUnlock()
                : before.handle((ignored, error) -> null).thenCompose(ignored -> sendUnlock());
        if (answers != null) {
            unlocking.whenComplete((ignored, error) -> {
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                if (cause instanceof IllegalMonitorStateException) {
                    complete(answers, false, null);
                } else {
                    complete(answers, error == null, cause);
                }
            });
        }
        return unlocking;
    }

    private CompletableFuture<Void> sendUnlock() {
        try {
            return lock.unlockAsync(redisId).toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static void complete(CompletableFuture<Boolean> answers, Boolean held, Throwable error) {
        if (error != null) {
            answers.completeExceptionally(error);
        } else {
            answers.complete(held);
        }
    }
}
