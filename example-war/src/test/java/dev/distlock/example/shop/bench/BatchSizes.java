package dev.distlock.example.shop.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The combined batches of one storm, from the servers' {@code distlock.CombinedBatch} events: how
 * many orders each served, and what the database cost per order on the batches' own threads.
 *
 * @param batches        batches recorded
 * @param meanSize       orders per batch, the mean
 * @param p50            orders per batch, the median
 * @param p90            the 90th percentile
 * @param max            the largest batch
 * @param databaseReads  socket reads from the database per order inside the batches: its round trips and parts of them
 * @param databaseMillis time waiting on the database per order inside the batches
 */
record BatchSizes(int batches, double meanSize, int p50, int p90, int max, double databaseReads, double databaseMillis) {

    static final BatchSizes NONE = new BatchSizes(0, Double.NaN, 0, 0, 0, Double.NaN, Double.NaN);

    static final String HEADER = """
            | variant | servers | batches | orders per batch: mean, p50, p90, max | database reads per order | database ms per order |
            |---|---:|---:|---|---:|---:|""";

    /** The figures of batches of {@code sizes} orders, which waited {@code databaseNanos} in {@code databaseReads} reads. */
    static BatchSizes of(int[] sizes, long databaseReads, long databaseNanos) {
        if (sizes.length == 0) {
            return NONE;
        }
        int[] sorted = sizes.clone();
        Arrays.sort(sorted);
        long orders = Arrays.stream(sorted).asLongStream().sum();
        return new BatchSizes(sorted.length, (double) orders / sorted.length, rank(sorted, 0.5), rank(sorted, 0.9),
                sorted[sorted.length - 1], (double) databaseReads / orders, databaseNanos / 1e6 / orders);
    }

    /** The rounds' batches together: summed counts, medians of the rest. */
    static BatchSizes median(List<BatchSizes> rounds) {
        List<BatchSizes> recorded = rounds.stream().filter(round -> round.batches > 0).toList();
        if (recorded.isEmpty()) {
            return NONE;
        }
        return new BatchSizes(recorded.stream().mapToInt(BatchSizes::batches).sum(),
                median(recorded.stream().mapToDouble(BatchSizes::meanSize).toArray()),
                (int) median(recorded.stream().mapToDouble(BatchSizes::p50).toArray()),
                (int) median(recorded.stream().mapToDouble(BatchSizes::p90).toArray()),
                recorded.stream().mapToInt(BatchSizes::max).max().orElse(0),
                median(recorded.stream().mapToDouble(BatchSizes::databaseReads).toArray()),
                median(recorded.stream().mapToDouble(BatchSizes::databaseMillis).toArray()));
    }

    String markdown(String variant, int servers) {
        return String.format(Locale.ROOT, "| %s | %d | %,d | %.1f, %d, %d, %d | %.2f | %.3f |", variant, servers, batches, meanSize, p50,
                p90, max, databaseReads, databaseMillis);
    }

    private static int rank(int[] sorted, double quantile) {
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
