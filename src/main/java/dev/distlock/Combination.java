package dev.distlock;

import java.util.Objects;

/**
 * Calls that may be served together, for the programmatic API: what {@link Combined} is to a
 * bean's method. Make one per kind of call and keep it (calls are combined only with calls of the
 * same {@code Combination} instance that want the same keys), then call
 * {@link DistributedLocks.LockCall#combine(Combination, Object...)}:
 *
 * <pre>{@code
 * Combination<Order> placing = Combination.of(32, batch -> {
 *     Stock stock = stocks.read(sku);
 *     for (Batch.Call<Order> call : batch) { ... call.complete(order) or call.fail(new SoldOut(...)); }
 *     stocks.write(stock);
 * });
 * Order order = locks.exclusive("stock:" + sku).combine(placing, sku, quantity);
 * }</pre>
 *
 * @param <R> what each call is answered
 */
public final class Combination<R> {

    /** Serves a batch of calls, holding the lock. */
    @FunctionalInterface
    public interface BatchWork<R> {
        /** Answers each call of {@code batch}; throwing fails every call of it ({@link CombinedCallFailedException}). */
        void serve(Batch<R> batch) throws Exception;
    }

    /** The bounds of {@link #max()}. */
    public static final int MIN_BATCH = 2;
    public static final int MAX_BATCH = 1_000;

    private final int max;
    private final BatchWork<R> work;

    private Combination(int max, BatchWork<R> work) {
        if (max < MIN_BATCH || max > MAX_BATCH) {
            throw new IllegalArgumentException("a combination serves " + MIN_BATCH + " to " + MAX_BATCH
                    + " calls in a batch, was " + max);
        }
        this.max = max;
        this.work = Objects.requireNonNull(work, "work");
    }

    /** Batches of up to {@code max} calls (2 to 1,000), served by {@code work}. */
    public static <R> Combination<R> of(int max, BatchWork<R> work) {
        return new Combination<>(max, work);
    }

    /** The most calls one batch serves. */
    public int max() {
        return max;
    }

    /** What serves a batch. */
    public BatchWork<R> work() {
        return work;
    }
}
