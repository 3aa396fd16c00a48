package dev.distlock.internal.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Notices a held lock going missing while its method still runs — the watchdog could not renew
 * it, or the store lost it — instead of only at release. A tenure found lost, or that a
 * confirmation could not show held, is broken (never handed on) and checked at the next tick, so
 * its holder hears of a loss at once. Each held {@link Tenure} is checked in its
 * backend every {@code interval} (a third of the lease, like Redisson's renewal); it counts as lost
 * when the backend answers that it is not held, or when no check has confirmed it for longer than its
 * lease (the store unreachable: the lease has run out by then). One daemon thread per engine looks every
 * 100 ms for checks that are due; taking and releasing a lock only adds to and removes from a set.
 *
 * <p>The thread also runs the engine's other timed work (confirmations, a backend's sweeps). It starts with
 * the first lock watched and stops at {@link #close()}, so an engine that is closed with its
 * application leaves no thread behind, and no reference to the application's classes.
 */
final class LeaseWatch implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LeaseWatch.class.getName());
    /** How often the watch looks for tenures whose check is due. */
    private static final long TICK_MILLIS = 100;

    /** Creates its thread on the first task: an engine never used starts none. */
    private final ScheduledThreadPoolExecutor timer;
    /** Held tenures being watched; a tenure leaves when it is released or found lost. */
    private final Set<Watched> held = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean ticking = new AtomicBoolean();

    /** @param threadName the name of the watch's thread */
    LeaseWatch(String threadName) {
        timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        // After close, delayed tasks are dropped: leases end on their own, and the client is closing.
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        timer.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
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
     * runs (on the backend's thread) when it is found lost. Stops once the tenure is released.
     */
    void watch(Tenure tenure, long leaseMillis, Runnable onLost) {
        tenure.lastConfirmedNanos = System.nanoTime();
        Watched watched = new Watched(tenure, leaseMillis, onLost);
        tenure.watched = watched;
        held.add(watched);
        if (!ticking.get() && ticking.compareAndSet(false, true)) {
            submit(() -> timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS));
        }
    }

    /** Runs {@code task} on the watch's thread after {@code delayNanos}; it must be quick. */
    void later(Runnable task, long delayNanos) {
        submit(() -> timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS));
    }

    /** The tenure was released: no more checks. */
    void forget(Watched watched) {
        if (watched != null) {
            held.remove(watched);
        }
    }

    /**
     * {@code name}'s lock was ended in the store: every tenure of it here is broken at once (never
     * handed on again) and checked at the next tick rather than its next round, so its holder is told.
     */
    void endedInStore(String name) {
        for (Watched watched : held) {
            if (watched.tenure.name.equals(name)) {
                watched.tenure.markBroken();
            }
        }
    }

    /** Checks the tenure at the next tick rather than its next round: it was found lost, or could not be confirmed. */
    void checkSoon(Watched watched) {
        if (watched != null) {
            watched.nextCheckNanos = System.nanoTime();
        }
    }

    /** The tenures held and watched now, for {@link Inspection}: a snapshot as the set iterates. */
    List<Tenure> heldTenures() {
        List<Tenure> tenures = new ArrayList<>();
        for (Watched watched : held) {
            tenures.add(watched.tenure);
        }
        return tenures;
    }

    /** Whether {@link #close()} was called. */
    boolean isClosed() {
        return timer.isShutdown();
    }

    /** Stops the thread; later tasks are dropped, and locks still held are no longer watched. */
    @Override
    public void close() {
        timer.shutdownNow();
        held.clear();
    }

    /** Work handed to a closed watch is dropped: its engine is closed too. */
    private static void submit(Runnable scheduling) {
        try {
            scheduling.run();
        } catch (RejectedExecutionException closed) {
            // closed
        }
    }

    /**
     * The schedule ends for good if a run throws, and with it every later check, so nothing may
     * escape: a check that fails to start counts as unanswered, anything else is logged.
     */
    private void tick() {
        try {
            checkDue();
        } catch (Throwable e) {
            LOG.log(System.Logger.Level.WARNING, "Lease watch: a round of checks failed; the next round runs as usual", e);
        }
    }

    private void checkDue() {
        long now = System.nanoTime();
        for (Watched watched : held) {
            if (watched.checking || now - watched.nextCheckNanos < 0) {
                continue;
            }
            if (watched.tenure.isReleased()) {
                held.remove(watched);
                continue;
            }
            watched.checking = true;
            try {
                watched.tenure.held().whenComplete((held, error) -> checked(watched, held, error));
            } catch (RuntimeException | Error e) {
                checked(watched, null, e);
            }
        }
    }

    private void checked(Watched watched, Boolean stillHeld, Throwable error) {
        Tenure tenure = watched.tenure;
        long now = System.nanoTime();
        watched.nextCheckNanos = now + watched.intervalNanos;
        watched.checking = false;
        if (tenure.isReleased()) {
            return;
        }
        if (error == null && Boolean.TRUE.equals(stillHeld)) {
            tenure.lastConfirmedNanos = now;
        } else if (error == null || TimeUnit.NANOSECONDS.toMillis(now - tenure.lastConfirmedNanos) > watched.leaseMillis) {
            tenure.markBroken();
            held.remove(watched);
            watched.onLost.run();
        }
    }
}
