package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.id.IdGenerationException;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Ids from ranges leased out of a {@link SegmentStore}, double-buffered: when a tenth of the
 * current range is used, the next one is leased in the background, so {@code nextId()} is one
 * atomic increment in the steady state and never waits on I/O unless ranges run out faster than
 * the store answers. The step adapts to the rate ({@link AdaptiveStep}).
 *
 * <p>All store access runs on this generator's own thread, never the caller's, so it never joins
 * the caller's transaction: a rolled-back caller cannot un-lease a range another node then gets
 * ({@link SegmentRanges}).
 *
 * <p>{@link #close()} first stops issuing, then keeps the unused rest of the current range and an
 * unused next range in the store as spares; each later range is a spare above this generator's
 * ids if the store has one, a new lease otherwise. A generator that is never closed (a crash)
 * loses its ranges, and so does a close whose store does not answer: ids are skipped, never repeated.
 *
 * <p>A range handed out at or below one this generator already had is refused, never installed
 * ({@link HighestRange}): the store went back, and installing it would issue ids twice.
 */
public final class SegmentIdGenerator implements IdGenerator, AutoCloseable {

    private static final long RETRY_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How long {@link #close()} may take to stop and keep the spares; past it they are lost, never issued. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final String name;
    private final Settings settings;
    private final SegmentRanges ranges;

    /** Held to replace the current range, to start fetching the next one, and to stop at close. */
    private final ReentrantLock lock = new ReentrantLock();
    private volatile Segment current;
    /** The next range: being fetched, fetched, or failed. Guarded by the lock for writes. */
    private final AtomicReference<CompletableFuture<Segment>> next = new AtomicReference<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile long retryAfterNanos;
    private final AdaptiveStep step;

    /**
     * @param initialStep     the first range's size
     * @param minStep         the smallest a range gets
     * @param maxStep         the largest a range gets
     * @param targetPeriod    how long a range should last
     * @param storeTimeout    how long {@code nextId()} waits for the store when it must
     */
    public record Settings(long initialStep, long minStep, long maxStep, Duration targetPeriod, Duration storeTimeout) {
        public Settings {
            if (minStep < 1 || initialStep < minStep || maxStep < initialStep) {
                throw new IllegalArgumentException("steps must satisfy 1 <= min-step <= step <= max-step, were "
                        + minStep + " <= " + initialStep + " <= " + maxStep);
            }
            if (targetPeriod.isNegative() || targetPeriod.isZero() || storeTimeout.isNegative() || storeTimeout.isZero()) {
                throw new IllegalArgumentException("segment-period and store-timeout must be positive");
            }
        }

        public static Settings defaults() {
            return new Settings(1_000, 1_000, 1_000_000, Duration.ofMinutes(5), Duration.ofSeconds(10));
        }
    }

    public SegmentIdGenerator(String name, SegmentStore store, Settings settings) {
        this(name, store, settings, refused -> { });
    }

    /** @param refusals told of each range refused because the store went back, on the generator's own thread */
    public SegmentIdGenerator(String name, SegmentStore store, Settings settings, Consumer<RangeRefused> refusals) {
        this.name = Objects.requireNonNull(name, "name");
        Objects.requireNonNull(store, "store");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ranges = new SegmentRanges(name, store, Objects.requireNonNull(refusals, "refusals"));
        this.step = new AdaptiveStep(settings);
    }

    @Override
    public long nextId() {
        while (true) {
            Segment segment = current;
            if (segment != null) {
                long id = segment.cursor.getAndIncrement();
                if (id <= segment.last) {
                    if (id >= segment.prefetchAt && next.get() == null) {
                        prefetch();
                    }
                    return id;
                }
            }
            advance(segment);
        }
    }

    /** Replaces a used-up (or absent) segment by the next one, waiting for it if it must. */
    private void advance(Segment usedUp) {
        lock.lock();
        try {
            advanceLocked(usedUp);
        } finally {
            lock.unlock();
        }
    }

    private void advanceLocked(Segment usedUp) {
        if (current != usedUp) {
            return;
        }
        if (closed.get()) {
            throw closedError(null);
        }
        CompletableFuture<Segment> pending = next.get();
        if (pending == null || pending.isCompletedExceptionally()) {
            pending = fetch();
        }
        Segment fresh;
        try {
            fresh = pending.get(settings.storeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            next.compareAndSet(pending, null);
            if (e.getCause() instanceof IdGenerationException refused) {
                throw new IdGenerationException(refused.getMessage(), refused);
            }
            throw new IdGenerationException("Id generator '" + name + "' " + (usedUp == null ? "has no range yet" : "has used up its range")
                    + " and cannot lease one from the id store: " + e.getCause() + ". No id was issued; it retries on the next call.", e.getCause());
        } catch (TimeoutException e) {
            throw new IdGenerationException("Id generator '" + name + "' has used up its range and the id store did not "
                    + "answer within " + settings.storeTimeout().toMillis() + " ms. No id was issued.", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdGenerationException("Id generator '" + name + "': interrupted while waiting for the id store", e);
        }
        if (closed.get()) {
            // Closed while this waited: close() keeps the fresh range as a spare, so it must never serve here.
            throw closedError(null);
        }
        if (usedUp != null) {
            step.usedUp(usedUp);
        }
        next.compareAndSet(pending, null);
        current = fresh;
    }

    private void prefetch() {
        lock.lock();
        try {
            if (!closed.get() && next.get() == null && System.nanoTime() - retryAfterNanos >= 0) {
                fetch();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts fetching the next range: a spare above the current one if the store keeps one, else a
     * new lease. Callers hold the lock.
     */
    private CompletableFuture<Segment> fetch() {
        long size = step.get();
        Segment held = current;
        // Above every id this generator issued or will issue before the next range, so that its ids keep increasing.
        long above = held == null ? 0 : held.last;
        CompletableFuture<Segment> fetching = new CompletableFuture<>();
        // Published before the lease starts, so that a fast failure can clear it again.
        next.set(fetching);
        fetching.whenComplete((segment, error) -> {
            if (error != null) {
                // Keep serving the current range; try again after a pause, and report only when it runs dry.
                // No lock here: this runs on the io thread, which a caller in advance() may be waiting for.
                retryAfterNanos = System.nanoTime() + RETRY_BACKOFF_NANOS;
                next.compareAndSet(fetching, null);
            }
        });
        try {
            ranges.fetch(above, size, this::issuedUpTo, fetching);
        } catch (RejectedExecutionException shutDown) {
            next.compareAndSet(fetching, null);
            throw closedError(shutDown);
        }
        return fetching;
    }

    private IdGenerationException closedError(Throwable cause) {
        return new IdGenerationException("Id generator '" + name + "' is closed (the application is shutting down)", cause);
    }

    private long issuedUpTo() {
        Segment segment = current;
        return segment == null ? 0 : Math.min(segment.cursor.get() - 1, segment.last);
    }

    /** How many ranges were refused because the store handed out ids this generator already had. */
    public long rangesRefused() {
        return ranges.refusedCount();
    }

    /** The last range refused, until a range above it is taken: while present, readiness is DOWN. */
    public Optional<RangeRefused> refusal() {
        return ranges.refusal();
    }

    /** How many ranges were fetched from the store so far, new leases and spares. */
    public long storeRoundTrips() {
        return ranges.roundTrips();
    }

    /** The size of the next range to lease. */
    public long currentStep() {
        return step.get();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public IdStrategy strategy() {
        return IdStrategy.SEGMENT;
    }

    /**
     * Stops issuing, keeps the ids this generator leased and did not issue as spares in the store,
     * and stops its thread, within {@link #CLOSE_WAIT}. Every {@code nextId()} after it fails.
     * Spares the store does not take within the wait are lost, never issued.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        try {
            List<SegmentStore.Range> stopped = new ArrayList<>();
            CompletableFuture<Segment> pending = null;
            if (lockWithin(CLOSE_WAIT)) {
                try {
                    Segment segment = current;
                    if (segment != null) {
                        segment.stopIssuing().ifPresent(stopped::add);
                    }
                    pending = next.get();
                } finally {
                    lock.unlock();
                }
            }
            // Else a caller has held the lock all along, waiting for a range (its current one is used
            // up; the one it waits for is never served, as closed is set), or this thread was
            // interrupted: nothing is kept, and the ranges are lost.
            ranges.keepSpares(stopped, pending, deadline);
        } finally {
            ranges.close();
        }
    }

    private boolean lockWithin(Duration wait) {
        if (lock.tryLock()) {
            return true;
        }
        try {
            return lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
