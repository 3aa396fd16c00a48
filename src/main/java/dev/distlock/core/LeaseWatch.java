package dev.distlock.core;

import org.redisson.api.RLock;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Notices a held lock going missing while its method still runs — the watchdog could not renew
 * it, or Redis lost it — instead of only at release. Each held {@link Tenure} is checked in Redis
 * every {@code interval} (a third of the lease, like Redisson's renewal); it counts as lost when
 * Redis answers that it is not held, or when no check has confirmed it for longer than its lease
 * (Redis unreachable: the lease has run out by then). One daemon thread for the whole JVM looks
 * every 100 ms for checks that are due; taking and releasing a lock only adds to and removes
 * from a set.
 */
final class LeaseWatch {

    private static final System.Logger LOG = System.getLogger(LeaseWatch.class.getName());
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

    /** Held tenures being watched; a tenure leaves when it is released or found lost. */
    private static final Set<Watched> HELD = ConcurrentHashMap.newKeySet();
    /** How often the watch looks for tenures whose check is due. */
    private static final long TICK_MILLIS = 100;

    static {
        TIMER.scheduleWithFixedDelay(LeaseWatch::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** One watched tenure. Acquiring and releasing only add to and remove from a set: no timer work per call. */
    static final class Watched {
        private final Tenure tenure;
        private final long leaseMillis;
        private final long intervalNanos;
        private final Runnable onLost;
        private volatile long nextCheckNanos;
        private volatile boolean checking;

        private Watched(Tenure tenure, long leaseMillis, Runnable onLost) {
            this.tenure = tenure;
            this.leaseMillis = leaseMillis;
            this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(TICK_MILLIS, leaseMillis / 3));
            this.onLost = onLost;
            this.nextCheckNanos = System.nanoTime() + intervalNanos;
        }
    }

    /**
     * Starts watching {@code tenure}, held with a lease of {@code leaseMillis}; {@code onLost}
     * runs (on Redisson's thread) when it is found lost. Stops once the tenure is released.
     */
    static void watch(Tenure tenure, long leaseMillis, Runnable onLost) {
        tenure.lastConfirmedNanos = System.nanoTime();
        Watched watched = new Watched(tenure, leaseMillis, onLost);
        tenure.watched = watched;
        HELD.add(watched);
    }

    /** Runs {@code task} on the watch's thread after {@code delayNanos}; it must be quick. */
    static void later(Runnable task, long delayNanos) {
        TIMER.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** The tenure was released: no more checks. */
    static void forget(Watched watched) {
        if (watched != null) {
            HELD.remove(watched);
        }
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

    /**
     * The schedule ends for good if a run throws, and with it every later check, so nothing may
     * escape: a check that fails to start counts as unanswered, anything else is logged.
     */
    private static void tick() {
        try {
            checkDue();
        } catch (Throwable e) {
            LOG.log(System.Logger.Level.WARNING, "Lease watch: a round of checks failed; the next round runs as usual", e);
        }
    }

    private static void checkDue() {
        long now = System.nanoTime();
        for (Watched watched : HELD) {
            if (watched.checking || now - watched.nextCheckNanos < 0) {
                continue;
            }
            if (watched.tenure.isReleased() || watched.tenure.broken) {
                HELD.remove(watched);
                continue;
            }
            watched.checking = true;
            try {
                watched.tenure.lock.isHeldByThreadAsync(watched.tenure.redisId)
                        .whenComplete((held, error) -> checked(watched, held, error));
            } catch (RuntimeException | Error e) {
                checked(watched, null, e);
            }
        }
    }

    private static void checked(Watched watched, Boolean held, Throwable error) {
        Tenure tenure = watched.tenure;
        long now = System.nanoTime();
        watched.nextCheckNanos = now + watched.intervalNanos;
        watched.checking = false;
        if (tenure.isReleased()) {
            return;
        }
        if (error == null && Boolean.TRUE.equals(held)) {
            tenure.lastConfirmedNanos = now;
        } else if (error == null || TimeUnit.NANOSECONDS.toMillis(now - tenure.lastConfirmedNanos) > watched.leaseMillis) {
            tenure.broken = true;
            HELD.remove(watched);
            watched.onLost.run();
        }
    }
}
