package dev.distlock.spi.id;

import dev.distlock.id.IdGenerationException;

/**
 * The right to issue ids under one worker id, until {@code validUntilNanos} ({@link System#nanoTime()}).
 * A lease taken from Redis ends locally a safety margin before Redis can give the worker id to
 * another node; a fixed worker id never ends.
 */
public final class WorkerLease {

    public static final long FOREVER = Long.MAX_VALUE;

    public final long workerId;
    /** The last millisecond (since the layout's epoch) a previous holder issued ids in; -1 if none. */
    public final long previousHolderLastMillis;
    private volatile long validUntilNanos;
    /** Guarded by this. */
    private boolean ended;
    private final String generator;

    public WorkerLease(String generator, long workerId, long previousHolderLastMillis, long validUntilNanos) {
        this.generator = generator;
        this.workerId = workerId;
        this.previousHolderLastMillis = previousHolderLastMillis;
        this.validUntilNanos = validUntilNanos;
    }

    /** Extends a lease that has not ended; an ended lease stays ended (a renewal may race with its end). */
    public synchronized void extendTo(long validUntilNanos) {
        if (!ended) {
            this.validUntilNanos = validUntilNanos;
        }
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
