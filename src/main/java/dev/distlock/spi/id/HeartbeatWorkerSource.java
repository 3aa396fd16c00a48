package dev.distlock.spi.id;

import dev.distlock.id.IdGenerationException;

import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * A worker id leased in a store and kept by a heartbeat on a thread of its own: what the Redis and
 * the ZooKeeper leases share. The heartbeat renews the lease, or takes one when there is none; a
 * caller that finds the lease lapsed is refused at once (the heartbeat may be stuck in a call to the
 * store for the client's whole timeout) and the heartbeat is asked to take a new one soon.
 *
 * <p>Each renewal also records in the store the last millisecond the holder may issue ids in (its
 * clock plus the lease), which is what a later holder of the worker id starts above. A caller whose
 * clock has stepped past that record renews at once, on its own thread ({@link #recordUpTo}), and
 * issues its id only once the store has confirmed the new record.
 */
public abstract class HeartbeatWorkerSource implements WorkerSource {

    private static final System.Logger LOG = System.getLogger(HeartbeatWorkerSource.class.getName());

    protected final String generator;
    protected final SnowflakeLayout layout;
    protected final LongSupplier lastIssuedMillis;
    private final Clock clock;
    private final String store;
    private final ScheduledExecutorService heartbeat;
    private final AtomicBoolean reacquireQueued = new AtomicBoolean();

    protected volatile WorkerLease lease;
    private volatile IdGenerationException lastFailure;
    /**
     * Held while the lease is renewed, taken or given back: a round trip to the store. Not a
     * monitor, so that a virtual thread waiting here or holding it does not pin its carrier (Java 21 to 23).
     */
    private final ReentrantLock leasing = new ReentrantLock();
    /** Guarded by {@link #leasing}. */
    private boolean closed;

    protected HeartbeatWorkerSource(String generator, SnowflakeLayout layout, Clock clock, LongSupplier lastIssuedMillis, String store) {
        this.generator = generator;
        this.layout = layout;
        this.clock = clock;
        this.lastIssuedMillis = lastIssuedMillis;
        this.store = store;
        this.heartbeat = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-worker-lease-" + generator);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts the heartbeat; called by the subclass once it is fully made. */
    protected final void startHeartbeat(long periodMillis) {
        heartbeat.scheduleWithFixedDelay(this::renewOrAcquire, 0, Math.max(1, periodMillis), TimeUnit.MILLISECONDS);
    }

    /**
     * Extends {@code current}, held now, and records in the store the last millisecond it may issue
     * ids in (never below {@link #lastIssuedMillis}), raising {@link WorkerLease#recorded} once the
     * store has confirmed it; ends it and takes another if the store says it is gone.
     */
    protected abstract void renew(WorkerLease current) throws Exception;

    /** Takes a worker id and sets {@link #lease}; {@code ended} is the lease before, lapsed, or {@code null}. */
    protected abstract void acquire(WorkerLease ended) throws Exception;

    /** An orderly stop: gives {@code current} back, with the last millisecond really issued. */
    protected abstract void release(WorkerLease current);

    @Override
    public final WorkerLease current() {
        WorkerLease current = lease;
        if (current != null && current.isValid()) {
            return current;
        }
        if (current != null) {
            reacquireSoon();
            throw new IdGenerationException("Id generator '" + generator + "' lost the lease on worker id " + current.workerId
                    + " (" + store + " did not confirm it in time); it issues no ids until it holds a worker id again, so "
                    + "that no other node can issue the same ids.", lastFailure);
        }
        // First use: take the first lease now rather than wait for the heartbeat.
        leasing.lock();
        try {
            current = lease;
            if (current == null || !current.isValid()) {
                renewOrAcquire();
                current = lease;
            }
        } finally {
            leasing.unlock();
        }
        if (current == null || !current.isValid()) {
            IdGenerationException failure = lastFailure;
            throw failure != null ? failure : new IdGenerationException("Id generator '" + generator + "' holds no worker id");
        }
        return current;
    }

    /**
     * Renews now, on the caller's thread, unless a renewal since the caller looked has recorded
     * enough already. While the store is failing, callers are refused at once, without waiting for
     * a renewal in progress, rather than each wait for the store's timeout in turn; the heartbeat is
     * asked to try again soon.
     */
    @Override
    public final void recordUpTo(WorkerLease wanted, long elapsedMillis) {
        refuseWhileFailing(wanted);
        leasing.lock();
        try {
            if (closed || lease != wanted || !wanted.isValid() || wanted.recordedUntilMillis() >= elapsedMillis) {
                return; // the caller checks the lease and the record again
            }
            refuseWhileFailing(wanted);
            try {
                renew(wanted);
                lastFailure = null;
            } catch (Exception e) {
                lastFailure = failure(e);
                throw notRecorded(wanted, e);
            }
        } finally {
            leasing.unlock();
        }
    }

    private void refuseWhileFailing(WorkerLease wanted) {
        IdGenerationException failing = lastFailure;
        if (failing != null) {
            reacquireSoon();
            throw notRecorded(wanted, failing);
        }
    }

    private IdGenerationException notRecorded(WorkerLease wanted, Exception cause) {
        return new IdGenerationException("Id generator '" + generator + "': the clock is past the last millisecond " + store
                + " has recorded for worker id " + wanted.workerId + " and a later one could not be recorded (" + cause + "). No id"
                + " is issued past the record, so that a node taking the worker id after a crash cannot issue it again.", cause);
    }

    /** Runs the heartbeat now rather than at its next turn; once, however many callers ask. */
    protected final void reacquireSoon() {
        if (reacquireQueued.compareAndSet(false, true)) {
            try {
                heartbeat.execute(() -> {
                    reacquireQueued.set(false);
                    renewOrAcquire();
                });
            } catch (RejectedExecutionException closedMeanwhile) {
                reacquireQueued.set(false);
            }
        }
    }

    private void renewOrAcquire() {
        leasing.lock();
        try {
            renewOrAcquireLocked();
        } finally {
            leasing.unlock();
        }
    }

    /** Guarded by {@link #leasing}. */
    private void renewOrAcquireLocked() {
        if (closed) {
            return;
        }
        try {
            WorkerLease current = lease;
            if (current != null && current.isValid()) {
                renew(current);
            } else {
                acquire(current);
            }
            lastFailure = null;
        } catch (Exception e) {
            lastFailure = failure(e);
            LOG.log(System.Logger.Level.WARNING, lastFailure.getMessage());
        }
    }

    private IdGenerationException failure(Exception e) {
        return e instanceof IdGenerationException known ? known : new IdGenerationException(
                "Id generator '" + generator + "' cannot lease a worker id from " + store + ": " + e + "; it issues no ids until it can.", e);
    }

    /** Now on this node's clock, in milliseconds since the layout's epoch. */
    protected final long elapsedMillis() {
        return clock.millis() - layout.epoch().toEpochMilli();
    }

    /** The error when every worker id is taken (or was used by a node whose clock is ahead of this one). */
    protected final IdGenerationException allTaken(int count) {
        return new IdGenerationException("Id generator '" + generator + "': all " + count + " worker ids are leased by "
                + "live nodes (or were used by a node whose clock is ahead of this one); add worker bits or stop nodes.");
    }

    @Override
    public void close() {
        // Not shutdownNow(): an interrupted renewal may still run in the store, or be followed by an
        // acquisition nobody would give back. A heartbeat in progress finishes, holding the
        // lock; after it, none starts, and whatever lease it left is returned here.
        heartbeat.shutdown();
        leasing.lock();
        try {
            closed = true;
            WorkerLease current = lease;
            if (current != null) {
                current.end();
                release(current);
            }
        } finally {
            leasing.unlock();
        }
    }
}
