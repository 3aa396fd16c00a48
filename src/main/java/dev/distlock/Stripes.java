package dev.distlock;

import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One hot resource split into {@code count} stripes, each locked on its own, so that up to
 * {@code count} callers work on it at once: a SKU's stock kept in 16 rows of 1/16th each, a rate
 * budget split in parts. The lock of stripe {@code i} is an ordinary lock whose key ends in
 * {@code :i}, e.g. {@code @Locked("stock:{sku}:{stripe}")} with an {@code int stripe} parameter.
 *
 * <h2>Knowing where the stock is</h2>
 * Keep what every stripe holds where one read, without any lock, returns all of it — the stripes'
 * rows read by one query, or a record of them beside the stripes in the same store — and look
 * before taking a lock. Then a caller needs no lock to learn that everything is gone, and one lock
 * on average to find a stripe that can serve it, however many stripes there are:
 *
 * <pre>{@code
 * Stripes stripes = Stripes.of(16);
 * for (int tries = 1; ; tries++) {
 *     int[] stock = inventory.stripesOf(sku);                   // one query, no lock
 *     if (Arrays.stream(stock).sum() < quantity) throw soldOut(sku);   // no lock taken
 *     OptionalInt stripe = stripes.pick(stock, quantity);
 *     if (stripe.isEmpty() || tries == 4) {                     // no one stripe can serve it, or busy
 *         return locks.exclusive(stripes.keys("stock:" + DistributedLocks.encode(sku))).get(() -> ...);
 *     }
 *     Optional<Order> order = orders.placeIn(sku, stripe.getAsInt(), quantity);   // @Locked("stock:{sku}:{stripe}")
 *     if (order.isPresent()) return order.get();
 *     // another caller emptied that stripe since the look: look again
 * }
 * }</pre>
 *
 * <p>A look is a hint, never a promise: under its stripe's lock the caller reads the stripe again
 * and takes only what is there. A stale look therefore cannot oversell; it can only send a caller
 * to a stripe that is empty by the time it holds the lock, which costs that one lock and another
 * look. {@link #pick} chooses among the stripes that can serve the caller in proportion to their
 * stock, so callers spread over the stripes and the stripes drain evenly, and two callers rarely
 * choose the last units of one stripe while another still holds many. A sold-out answer from the
 * look is true of the moment of the read: a restock after it is not seen, as with any read.
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
     * A stripe to try, chosen at random among those that {@code known} says hold at least
     * {@code needed}, each with a chance in proportion to what it holds: with {@code needed} 1,
     * every unit is as likely to be the next one sold. See "Knowing where the stock is" above.
     *
     * @param known  what each stripe held when last read, by stripe number (a look without the locks)
     * @param needed what the caller takes from one stripe, at least 1
     * @return the stripe; empty when no stripe held {@code needed}: nothing to take from one stripe
     *         alone (all of them together may still hold enough)
     * @throws IllegalArgumentException if {@code known} does not have one entry per stripe, or
     *                                  {@code needed} is below 1
     */
    public OptionalInt pick(int[] known, int needed) {
        Objects.requireNonNull(known, "known");
        if (known.length != count) {
            throw new IllegalArgumentException("pick needs what each of the " + count + " stripes holds, was given " + known.length
                    + " value(s)");
        }
        if (needed < 1) {
            throw new IllegalArgumentException("pick needs at least 1 unit to look for, was " + needed);
        }
        long enough = 0;
        for (int held : known) {
            if (held >= needed) {
                enough += held;
            }
        }
        if (enough == 0) {
            return OptionalInt.empty();
        }
        long unit = ThreadLocalRandom.current().nextLong(enough);
        for (int stripe = 0; stripe < count; stripe++) {
            if (known[stripe] >= needed) {
                unit -= known[stripe];
                if (unit < 0) {
                    return OptionalInt.of(stripe);
                }
            }
        }
        throw new AssertionError("unreachable: the units counted add up to " + enough);
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
