package dev.distlock;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One hot resource split into {@code count} stripes, each locked on its own, so that up to
 * {@code count} callers work on it at once: a SKU's stock kept in 16 rows of 1/16th each, a rate
 * budget split in parts. The lock of stripe {@code i} is an ordinary lock whose key ends in
 * {@code :i}, e.g. {@code @Locked("stock:{sku}:{stripe}")} with an {@code int stripe} parameter.
 *
 * <pre>{@code
 * Stripes stripes = Stripes.of(16);
 * for (int stripe : stripes.walk()) {                     // every stripe once, from a random one
 *     Optional<Order> order = orders.placeIn(sku, stripe, quantity);   // @Locked("stock:{sku}:{stripe}")
 *     if (order.isPresent()) return order.get();
 * }
 * // every stripe at once, e.g. to set the total or to take from several:
 * locks.exclusive(stripes.keys("stock:" + DistributedLocks.encode(sku))).get(() -> ...);
 * }</pre>
 *
 * <p>Nothing is oversold by construction as long as each stripe is only changed under its own
 * lock and never below zero: the total is the sum of the stripes. What striping gives up is a
 * single place that knows the total: an order larger than any one stripe holds must take several
 * stripes' locks at once ({@link #keys}), always all of them in one call so that the keys are
 * taken in the same sorted order and two such calls cannot deadlock. Immutable and thread-safe.
 */
public final class Stripes {

    /** The most stripes one resource may have. */
    public static final int MAX_COUNT = 1_024;

    private final int count;

    private Stripes(int count) {
        this.count = count;
    }

    /**
     * @throws IllegalArgumentException unless {@code 1 <= count <= MAX_COUNT}
     */
    public static Stripes of(int count) {
        if (count < 1 || count > MAX_COUNT) {
            throw new IllegalArgumentException("the number of stripes must be between 1 and " + MAX_COUNT + ", was " + count);
        }
        return new Stripes(count);
    }

    public int count() {
        return count;
    }

    /**
     * Every stripe once, starting at a random one and going on in order, wrapping around: callers
     * that start together spread over the stripes, and a caller that finds its stripe empty moves on.
     */
    public int[] walk() {
        return from(ThreadLocalRandom.current().nextInt(count));
    }

    /**
     * Every stripe once, starting at the one {@code routing} picks (by its hash code, so that the
     * same customer or request always starts at the same stripe) and going on in order, wrapping.
     */
    public int[] walk(Object routing) {
        Objects.requireNonNull(routing, "routing");
        int hash = routing.hashCode();
        hash ^= hash >>> 16; // let the high bits of poorly spread hash codes matter too
        return from(Math.floorMod(hash, count));
    }

    private int[] from(int first) {
        int[] order = new int[count];
        for (int i = 0; i < count; i++) {
            order[i] = (first + i) % count;
        }
        return order;
    }

    /**
     * The lock keys of all stripes: {@code key:0} to {@code key:<count-1>}, the keys
     * {@code @Locked("…:{stripe}")} renders for each stripe. Pass values that come from users
     * through {@link DistributedLocks#encode(String)} first, as the annotation does.
     */
    public String[] keys(String key) {
        Objects.requireNonNull(key, "key");
        if (key.isBlank()) {
            throw new IllegalArgumentException("the key of a striped lock must not be blank");
        }
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = key + ':' + i;
        }
        return keys;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Stripes stripes && stripes.count == count;
    }

    @Override
    public int hashCode() {
        return count;
    }

    @Override
    public String toString() {
        return "Stripes[" + count + "]";
    }
}
