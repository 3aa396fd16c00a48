package dev.distlock.core;

import org.redisson.api.RLock;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Notices a held lock going missing while its method still runs — the watchdog could not renew
 * it, or Redis lost it — instead of only at release. Each held {@link Tenure} is checked in Redis
 * every {@code interval} (a third of the lease, like Redisson's renewal); it counts as lost when
 * Redis answers that it is not held, or when no check has confirmed it for longer than its lease
 * (Redis unreachable: the lease has run out by then). One daemon thread for the whole JVM; a
 * check is a cancelled timer entry for locks released before it is due.
 */
final class LeaseWatch {

    private static final ScheduledThreadPoolExecutor TIMER = timer();

    private LeaseWatch() {
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "distlock-lease-watch");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /**
     * Starts watching {@code tenure}, held with a lease of {@code leaseMillis}; {@code onLost}
     * runs (on Redisson's or the watch's thread) when it is found lost. Stops by itself once the
     * tenure is released in Redis.
     */
    static void watch(Tenure tenure, long leaseMillis, Runnable onLost) {
        long intervalMillis = Math.max(100, leaseMillis / 3);
        tenure.lastConfirmedNanos = System.nanoTime();
        schedule(tenure, leaseMillis, intervalMillis, onLost);
    }

    /**
     * An acquisition failed in the client (Redis stalled past the client's timeout, the caller was
     * interrupted), but its script may still be waiting in Redis and run later, granting the lock
     * to an id nobody uses: such a lock would block everyone until its lease ran out. So the id is
     * released again a few times, at growing intervals, until its lease is over. The id is used by
     * no one else, so releasing it can never free another holder's lock.
     */
    static void sweep(RLock lock, long redisId, long leaseMillis) {
        sweep(lock, redisId, Math.max(1, leaseMillis) + 1000, 250);
    }

    private static void sweep(RLock lock, long redisId, long remainingMillis, long delayMillis) {
        if (remainingMillis <= 0) {
            return;
        }
        TIMER.schedule(() -> lock.unlockAsync(redisId).whenComplete((released, error) -> {
            if (error == null) {
                return; // it had been granted, and is free again
            }
            sweep(lock, redisId, remainingMillis - delayMillis, Math.min(delayMillis * 2, 8000));
        }), delayMillis, TimeUnit.MILLISECONDS);
    }

    private static void schedule(Tenure tenure, long leaseMillis, long intervalMillis, Runnable onLost) {
        ScheduledFuture<?> next = TIMER.schedule(() -> check(tenure, leaseMillis, intervalMillis, onLost),
                intervalMillis, TimeUnit.MILLISECONDS);
        tenure.watchNext(next);
    }

    private static void check(Tenure tenure, long leaseMillis, long intervalMillis, Runnable onLost) {
        if (tenure.isReleased() || tenure.broken) {
            return;
        }
        tenure.lock.isHeldByThreadAsync(tenure.redisId).whenComplete((held, error) -> {
            if (tenure.isReleased()) {
                return;
            }
            long now = System.nanoTime();
            if (error == null && Boolean.TRUE.equals(held)) {
                tenure.lastConfirmedNanos = now;
            } else if (error == null || TimeUnit.NANOSECONDS.toMillis(now - tenure.lastConfirmedNanos) > leaseMillis) {
                tenure.broken = true;
                onLost.run();
                return;
            }
            schedule(tenure, leaseMillis, intervalMillis, onLost);
        });
    }
}
