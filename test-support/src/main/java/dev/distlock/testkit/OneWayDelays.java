package dev.distlock.testkit;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One-way delays of a {@link DelayingProxy} as the benchmarks' options write them: milliseconds,
 * comma-separated, fractions allowed ({@code 0.25,1}). Both benchmark commands read and print them
 * the same way.
 */
public final class OneWayDelays {

    /** Beyond a second one way, a lock's waits would be about the delay, not the lock. */
    private static final double MAX_MILLIS = 1_000;

    private OneWayDelays() {
    }

    /**
     * The delays {@code millisList} names, in its order. Zeros stand for "no delay" and are left out
     * (so {@code 0} alone, like an empty list, means none), and so are repeats.
     *
     * @throws IllegalArgumentException naming the part that is not a number from 0 to 1000
     */
    public static List<Duration> parse(String millisList) {
        List<Duration> delays = new ArrayList<>();
        for (String part : millisList.split(",")) {
            String text = part.strip();
            if (text.isEmpty()) {
                continue;
            }
            double millis;
            try {
                millis = Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a number of milliseconds");
            }
            if (!(millis >= 0 && millis <= MAX_MILLIS)) {
                throw new IllegalArgumentException("each delay must be 0 to " + (int) MAX_MILLIS + " ms, was " + text);
            }
            Duration delay = Duration.ofNanos(Math.round(millis * 1_000_000));
            if (!delay.isZero() && !delays.contains(delay)) {
                delays.add(delay);
            }
        }
        return List.copyOf(delays);
    }

    /** {@code 0.25}, {@code 1}: the delay in milliseconds, as {@link #parse} reads it, without trailing zeros. */
    public static String millis(Duration delay) {
        return BigDecimal.valueOf(delay.toNanos(), 6).stripTrailingZeros().toPlainString();
    }
}
