package dev.distlock.core.id;

import dev.distlock.id.IdGenerationException;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Ids from ranges leased out of a {@link SegmentStore}, double-buffered: when a tenth of the
 * current range is used, the next one is leased in the background, so {@code nextId()} is one
 * atomic increment in the steady state and never waits on I/O unless ranges run out faster than
 * the store answers. The step adapts to the rate: a range used up in less than half the target
 * period doubles the next step, one that lasted more than twice as long halves it.
 *
 * <p>All store access runs on this generator's own thread, never the caller's, so it never joins
 * the caller's transaction: a rolled-back caller cannot un-lease a range another node then gets.
 */
public final class SegmentIdGenerator implements IdGenerator, AutoCloseable {

    /** When this share of a range is used, the next range is fetched. */
    static final double PREFETCH_AT = 0.1;
    private static final long RETRY_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final String name;
    private final SegmentStore store;
    private final Settings settings;
    private final ExecutorService io;

    private volatile Segment current;
    /** The next range: being leased, leased, or failed. Guarded by this for writes. */
    private final AtomicReference<CompletableFuture<Segment>> next = new AtomicReference<>();
    private volatile long retryAfterNanos;
    private volatile long step;
    private final AtomicLong storeRoundTrips = new AtomicLong();

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
        this.name = Objects.requireNonNull(name, "name");
        this.store = Objects.requireNonNull(store, "store");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.step = settings.initialStep();
        this.io = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-segment-" + name);
            thread.setDaemon(true);
            return thread;
        });
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
    private synchronized void advance(Segment usedUp) {
        if (current != usedUp) {
            return;
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
            throw new IdGenerationException("Id generator '" + name + "' " + (usedUp == null ? "has no range yet" : "has used up its range")
                    + " and cannot lease one from the id store: " + e.getCause() + ". No id was issued; it retries on the next call.", e.getCause());
        } catch (TimeoutException e) {
            throw new IdGenerationException("Id generator '" + name + "' has used up its range and the id store did not "
                    + "answer within " + settings.storeTimeout().toMillis() + " ms. No id was issued.", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdGenerationException("Id generator '" + name + "': interrupted while waiting for the id store", e);
        }
        if (usedUp != null) {
            adaptStep(usedUp);
        }
        next.compareAndSet(pending, null);
        current = fresh;
    }

    private synchronized void prefetch() {
        if (next.get() == null && System.nanoTime() - retryAfterNanos >= 0) {
            fetch();
        }
    }

    /** Starts leasing the next range; callers hold this generator's monitor. */
    private CompletableFuture<Segment> fetch() {
        long size = step;
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
            io.execute(() -> {
                try {
                    storeRoundTrips.incrementAndGet();
                    fetching.complete(new Segment(store.lease(name, size)));
                } catch (Exception | Error e) {
                    fetching.completeExceptionally(e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            next.compareAndSet(fetching, null);
            throw new IdGenerationException("Id generator '" + name + "' is closed (the application is shutting down)", closed);
        }
        return fetching;
    }

    private void adaptStep(Segment usedUp) {
        long lasted = System.nanoTime() - usedUp.leasedAtNanos;
        long target = settings.targetPeriod().toNanos();
        if (lasted < target / 2 && step < settings.maxStep()) {
            step = Math.min(settings.maxStep(), step * 2);
        } else if (lasted > target * 2 && step > settings.minStep()) {
            step = Math.max(settings.minStep(), step / 2);
        }
    }

    /** How many ranges were leased from the store so far. */
    public long storeRoundTrips() {
        return storeRoundTrips.get();
    }

    /** The size of the next range to lease. */
    public long currentStep() {
        return step;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public IdStrategy strategy() {
        return IdStrategy.SEGMENT;
    }

    @Override
    public void close() {
        io.shutdownNow();
    }

    private static final class Segment {
        final long last;
        final long prefetchAt;
        final long leasedAtNanos = System.nanoTime();
        final AtomicLong cursor;

        Segment(SegmentStore.Range range) {
            this.last = range.last();
            this.prefetchAt = range.first() + Math.max(0, (long) (range.size() * PREFETCH_AT) - 1);
            this.cursor = new AtomicLong(range.first());
        }
    }
}
