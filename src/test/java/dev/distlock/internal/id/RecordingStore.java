package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store that notes every range it leased and every spare it handed out, and can answer
 * slowly, as a distant database would.
 */
final class RecordingStore implements SegmentStore {

    private final SegmentStore delegate;
    private final long delayMillis;
    private final List<Range> leased = new CopyOnWriteArrayList<>();
    private final List<Range> sparesTaken = new CopyOnWriteArrayList<>();
    private final AtomicInteger leases = new AtomicInteger();

    RecordingStore(SegmentStore delegate, long delayMillis) {
        this.delegate = delegate;
        this.delayMillis = delayMillis;
    }

    @Override
    public Range lease(String name, long step) throws Exception {
        if (delayMillis > 0) {
            TimeUnit.MILLISECONDS.sleep(delayMillis);
        }
        Range range = delegate.lease(name, step);
        leased.add(range);
        leases.incrementAndGet();
        return range;
    }

    @Override
    public Optional<Range> takeSpare(String name, long above) throws Exception {
        Optional<Range> spare = delegate.takeSpare(name, above);
        spare.ifPresent(sparesTaken::add);
        return spare;
    }

    @Override
    public void keepSpares(String name, List<Range> spares) throws Exception {
        delegate.keepSpares(name, spares);
    }

    /** How many ranges were leased; cheap enough to ask between two ids. */
    int leaseCount() {
        return leases.get();
    }

    List<Range> leased() {
        return List.copyOf(leased);
    }

    List<Range> sparesTaken() {
        return List.copyOf(sparesTaken);
    }
}
