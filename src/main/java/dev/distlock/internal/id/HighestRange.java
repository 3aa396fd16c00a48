package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.id.IdGenerationException;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The highest range a segment generator has taken, and the refusal of any range not above it. A
 * store's high-water mark only grows, so a range at or below one already taken means the store went
 * back (a failover to a replica that missed the last leases, a restore from a backup): installing it
 * would issue ids a second time. Spares are checked too, as a lost delete hands one out twice.
 *
 * <p>Only what this generator took is known: a generator started after the store went back, or a
 * range that another node leased and the store lost, is not seen here.
 */
final class HighestRange {

    private static final System.Logger LOG = System.getLogger(HighestRange.class.getName());

    private final String generator;
    private final String where;
    private final Consumer<RangeRefused> listener;
    /** Written only by the generator's store thread; read for messages. */
    private volatile long highest;
    private final AtomicLong refused = new AtomicLong();
    /** The last refusal until a range above it is taken; what readiness reports. */
    private volatile RangeRefused open;

    HighestRange(String generator, String where, Consumer<RangeRefused> listener) {
        this.generator = generator;
        this.where = where;
        this.listener = listener;
    }

    /**
     * Takes {@code range} as the generator's highest if it is above every range taken before.
     *
     * @param issued the highest id issued so far, for the message
     * @throws IdGenerationException naming the range and what was had, when it is not above
     */
    void take(SegmentStore.Range range, boolean spare, long issued) {
        long had = highest;
        if (range.first() > had) {
            highest = range.last();
            open = null;
            return;
        }
        RangeRefused refusal = new RangeRefused(generator, range, spare, had, issued, where);
        refused.incrementAndGet();
        open = refusal;
        LOG.log(System.Logger.Level.ERROR, refusal.message());
        try {
            listener.accept(refusal);
        } catch (RuntimeException e) {
            // A metric that cannot be recorded must not hide the refusal itself.
            LOG.log(System.Logger.Level.WARNING, "Id generator '" + generator + "': recording a refused range failed: " + e);
        }
        throw new IdGenerationException(refusal.message());
    }

    long refusedCount() {
        return refused.get();
    }

    Optional<RangeRefused> open() {
        return Optional.ofNullable(open);
    }
}
