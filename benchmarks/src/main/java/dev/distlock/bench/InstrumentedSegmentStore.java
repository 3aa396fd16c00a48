package dev.distlock.bench;

import dev.distlock.spi.id.SegmentStore;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link SegmentStore} decorator for the id benchmarks: counts the leases that reach the store,
 * notes when each leased range came back, and can add a fixed delay to each lease, to stand in for
 * a store further away than an in-memory H2 (a database across a network, a busy primary).
 */
final class InstrumentedSegmentStore implements SegmentStore {

    /** A leased range and the {@link System#nanoTime()} at which the store returned it. */
    record Lease(long first, long last, long returnedAtNanos) {
    }

    private final SegmentStore delegate;
    private final long addedDelayNanos;
    private final AtomicLong leases = new AtomicLong();
    private final AtomicLong finished = new AtomicLong();
    private final List<Lease> returned = new CopyOnWriteArrayList<>();

    InstrumentedSegmentStore(SegmentStore delegate, Duration addedDelay) {
        this.delegate = delegate;
        this.addedDelayNanos = addedDelay.toNanos();
    }

    @Override
    public Range lease(String name, long step) throws Exception {
        leases.incrementAndGet();
        try {
            pause();
            Range range = delegate.lease(name, step);
            returned.add(new Lease(range.first(), range.last(), System.nanoTime()));
            return range;
        } finally {
            finished.incrementAndGet();
        }
    }

    /** Waits until no lease is in flight (a prefetch the generator started may still be running), at most {@code timeout}. */
    void awaitNoLeaseInFlight(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (finished.get() < leases.get()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("a lease of the id store is still running after " + timeout);
            }
            Thread.sleep(1);
        }
    }

    /** Leases asked of this store so far (each one a store round trip). */
    long leases() {
        return leases.get();
    }

    /** The lease whose range holds {@code id}, or null if none does. */
    Lease leaseOf(long id) {
        for (Lease lease : returned) {
            if (lease.first() <= id && id <= lease.last()) {
                return lease;
            }
        }
        return null;
    }

    /** Waits at least the added delay; parkNanos may return early, so it loops to the deadline. */
    private void pause() {
        long deadline = System.nanoTime() + addedDelayNanos;
        for (long left = addedDelayNanos; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
