package dev.distlock.spi.id;

import dev.distlock.id.IdGenerationException;

/**
 * The right to issue ids under one worker id, until {@code validUntilNanos} ({@link System#nanoTime()}),
 * in milliseconds up to the one the store has recorded for it ({@link #recordedUntilMillis()}).
 * A lease taken from Redis ends locally a safety margin before Redis can give the worker id to
 * another node; a fixed worker id never ends.
 */
public final class WorkerLease {

    public static final long FOREVER = Long.MAX_VALUE;
    /** For {@link #recordedUntilMillis()}: nothing is recorded, and ids are issued in any millisecond. */
    public static final long UNBOUNDED = Long.MAX_VALUE;

    public final long workerId;
    /** The last millisecond (since the layout's epoch) a previous holder issued ids in; -1 if none. */
    public final long previousHolderLastMillis;
    private volatile long validUntilNanos;
    /**
     * The last millisecond (since the layout's epoch) the store has recorded that this holder may
     * issue ids in: what the next holder of the worker id will start above. Only grows.
     */
    private volatile long recordedUntilMillis;
    /** Guarded by this. */
    private boolean ended;
    private final String generator;

    /**
     * @param recordedUntilMillis what the store recorded as this holder's last millisecond when it
     *                            granted the lease; {@link #UNBOUNDED} where the store keeps none
     */
    public WorkerLease(String generator, long workerId, long previousHolderLastMillis, long recordedUntilMillis, long validUntilNanos) {
        this.generator = generator;
        this.workerId = workerId;
        this.previousHolderLastMillis = previousHolderLastMillis;
        this.recordedUntilMillis = recordedUntilMillis;
        this.validUntilNanos = validUntilNanos;
    }

    /** Extends a lease that has not ended; an ended lease stays ended (a renewal may race with its end). */
    public synchronized void extendTo(long validUntilNanos) {
        if (!ended) {
            this.validUntilNanos = validUntilNanos;
        }
    }

    /**
     * The store has confirmed that it records {@code millis} (or more) as this holder's last
     * millisecond; never lowers what an earlier confirmation allowed.
     */
    public synchronized void recorded(long millis) {
        if (millis > recordedUntilMillis) {
            recordedUntilMillis = millis;
        }
    }

    /** Ids of this lease are issued in no later millisecond (since the layout's epoch) than this. */
    public long recordedUntilMillis() {
        return recordedUntilMillis;
    }

    public synchronized void end() {
        ended = true;
        this.validUntilNanos = Long.MIN_VALUE;
    }

    public boolean isValid() {
        long until = validUntilNanos;
        return until == FOREVER || System.nanoTime() - until < 0;
    }

    public void checkValid() {
        if (!isValid()) {
            throw new IdGenerationException("Id generator '" + generator + "' lost the lease on worker id " + workerId
                    + " (Redis did not confirm it in time); it issues no ids until it holds a worker id again, so that "
                    + "no other node can issue the same ids.");
        }
    }
}
