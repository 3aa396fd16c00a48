package dev.distlock.testkit;

/** Nearest-rank quantiles of measured values, the one definition every figure here is computed with. */
public final class Quantiles {

    private Quantiles() {
    }

    /**
     * The nearest-rank {@code q}-quantile of {@code sorted} (ascending): the smallest value with at
     * least {@code q} of the values at or below it; {@code q = 0.5} is the median, {@code 0.999} p99.9.
     */
    public static long nearestRank(long[] sorted, double q) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        if (!(q > 0 && q <= 1)) {
            throw new IllegalArgumentException("a quantile is in (0, 1], not " + q);
        }
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(index, sorted.length - 1))];
    }
}
