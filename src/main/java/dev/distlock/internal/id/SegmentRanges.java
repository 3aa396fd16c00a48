package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Where one {@link SegmentIdGenerator}'s ranges come from and go back to: its store, asked only on a
 * thread of the generator's own, one task at a time, never on the caller's, so that no lease joins
 * the caller's transaction (a rolled-back caller cannot un-lease a range another node then gets).
 * Each range is checked against the highest one taken before ({@link HighestRange}); the ids a
 * closing generator did not issue go back to the store as spares.
 */
final class SegmentRanges {

    /** The generator's logger: what it logs is the generator's, as it was before this class was split from it. */
    private static final System.Logger LOG = System.getLogger(SegmentIdGenerator.class.getName());

    private final String name;
    private final SegmentStore store;
    private final HighestRange highestRange;
    private final ExecutorService io;
    private final AtomicLong roundTrips = new AtomicLong();

    /** @param refusals told of each range refused because the store went back, on the store thread */
    SegmentRanges(String name, SegmentStore store, Consumer<RangeRefused> refusals) {
        this.name = name;
        this.store = store;
        this.highestRange = new HighestRange(name, store.whereKept(name), refusals);
        this.io = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-segment-" + name);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Completes {@code fetching}, on the store thread, with the next range: a spare above
     * {@code above} if the store keeps one, else a new lease of {@code size} ids; or with the
     * failure, a refusal included.
     *
     * @param issuedUpTo the highest id the generator issued, read there for a refusal's message
     * @throws RejectedExecutionException once {@link #close()}d
     */
    void fetch(long above, long size, LongSupplier issuedUpTo, CompletableFuture<Segment> fetching) {
        io.execute(() -> {
            try {
                roundTrips.incrementAndGet();
                Optional<SegmentStore.Range> spare = store.takeSpare(name, above);
                SegmentStore.Range range = spare.isPresent() ? spare.get() : store.lease(name, size);
                highestRange.take(range, spare.isPresent(), issuedUpTo.getAsLong());
                fetching.complete(new Segment(range, spare.isPresent()));
            } catch (Exception | Error e) {
                fetching.completeExceptionally(e);
            }
        });
    }

    /**
     * On the store thread, after any fetch in flight (it runs one task at a time): the stopped rest,
     * and the next range if it arrived, since nothing can serve it any more. Waits until
     * {@code deadline} (a {@link System#nanoTime()}); what the store has not taken by then is lost,
     * never issued.
     */
    void keepSpares(List<SegmentStore.Range> stopped, CompletableFuture<Segment> pending, long deadline) {
        if (stopped.isEmpty() && pending == null) {
            return;
        }
        Future<?> keeping;
        try {
            keeping = io.submit(() -> {
                List<SegmentStore.Range> spares = spares(stopped, pending);
                if (!spares.isEmpty()) {
                    store.keepSpares(name, spares);
                }
                return null;
            });
        } catch (RejectedExecutionException e) {
            return;
        }
        try {
            keeping.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            lost(spares(stopped, pending), e.getCause().toString());
        } catch (TimeoutException e) {
            lost(spares(stopped, pending), "the id store did not answer within " + SegmentIdGenerator.CLOSE_WAIT.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lost(spares(stopped, pending), "interrupted");
        }
    }

    private static List<SegmentStore.Range> spares(List<SegmentStore.Range> stopped, CompletableFuture<Segment> pending) {
        List<SegmentStore.Range> spares = new ArrayList<>(stopped);
        if (pending != null && pending.isDone() && !pending.isCompletedExceptionally()) {
            spares.add(pending.join().range);
        }
        return spares;
    }

    private void lost(List<SegmentStore.Range> spares, String why) {
        LOG.log(System.Logger.Level.WARNING, "Id generator '" + name + "' could not keep its unused ids " + spares
                + " for the next start (" + why + "); they are skipped, never issued");
    }

    /** How many ranges were fetched from the store so far, new leases and spares. */
    long roundTrips() {
        return roundTrips.get();
    }

    long refusedCount() {
        return highestRange.refusedCount();
    }

    Optional<RangeRefused> refusal() {
        return highestRange.open();
    }

    /** Stops the store thread: a fetch or a keeping of spares in flight is interrupted. */
    void close() {
        io.shutdownNow();
    }
}
