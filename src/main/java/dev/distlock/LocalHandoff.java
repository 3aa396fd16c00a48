package dev.distlock;

import java.time.Duration;
import java.util.Objects;

/**
 * How far a JVM may pass a held exclusive or write lock from one local caller to the next without
 * asking Redis. While callers in this JVM queue for a key, the one finishing hands the Redis lock to
 * the next, up to {@code maxHandoffs} times or for up to {@code maxTime} since Redis granted it;
 * then it releases in Redis, so callers in other JVMs get their turn. Only locks with the watchdog
 * lease are passed on: a fixed lease would run out under a caller that did not ask for it.
 *
 * @param maxHandoffs how many local callers in a row may receive the lock; 0 turns handoff off
 * @param maxTime     how long after Redis granted it the lock may still be passed on
 */
public record LocalHandoff(int maxHandoffs, Duration maxTime) {

    /** 128 callers in a row, within 50 ms. */
    public static final LocalHandoff DEFAULT = new LocalHandoff(128, Duration.ofMillis(50));

    /** Every caller asks Redis. */
    public static final LocalHandoff OFF = new LocalHandoff(0, Duration.ZERO);

    public LocalHandoff {
        Objects.requireNonNull(maxTime, "maxTime");
        if (maxHandoffs < 0) {
            throw new IllegalArgumentException("maxHandoffs must be >= 0 (0 turns handoff off), was " + maxHandoffs);
        }
        if (maxTime.isNegative()) {
            throw new IllegalArgumentException("maxTime must not be negative, was " + maxTime);
        }
    }

    /** Whether a lock may pass between callers of this JVM at all ({@link #OFF} says no). */
    public boolean enabled() {
        return maxHandoffs > 0 && !maxTime.isZero();
    }
}
