package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** A range a {@link SegmentIdGenerator} issues from: one atomic increment per id. */
final class Segment {

    /** When this share of a range is used, the next range is fetched. */
    static final double PREFETCH_AT = 0.1;

    final SegmentStore.Range range;
    final long last;
    final long size;
    final long prefetchAt;
    /** Left by a closed generator rather than leased at the current step. */
    final boolean spare;
    final long leasedAtNanos = System.nanoTime();
    final AtomicLong cursor;

    Segment(SegmentStore.Range range, boolean spare) {
        this.range = range;
        this.last = range.last();
        this.size = range.size();
        this.prefetchAt = range.first() + Math.max(0, (long) (range.size() * PREFETCH_AT) - 1);
        this.spare = spare;
        this.cursor = new AtomicLong(range.first());
    }

    /**
     * Moves the cursor past the last id in one atomic step, so that every later increment finds
     * this segment used up: an id below the returned rest was issued (or is being), none in it ever will be.
     */
    Optional<SegmentStore.Range> stopIssuing() {
        long from = cursor.getAndAdd(size);
        return from <= last ? Optional.of(new SegmentStore.Range(from, last)) : Optional.empty();
    }
}
