package dev.distlock.spi.id;

/**
 * The count of one daily serial's numbers, kept where every node reaches it
 * ({@link IdStore#dayCounter}): it hands out the day's next number from the range it holds and says
 * when it holds none. distlock's id engine keeps the rules: it leases every range durably from a
 * {@link SegmentStore} row per name and day and installs it here, refills in the background before
 * a range runs out, and writes the numbers out.
 *
 * <p>A counter never hands out a number from a count it cannot trust (lost, restored from an older
 * copy, or found on another server than the one it was written on): it answers as if it held no
 * range, and the next number then comes from a fresh range above the row's high-water mark. Numbers
 * can be skipped, never repeated.
 *
 * <p>The day is the counter's: read from the store's clock in the zone the engine describes
 * ({@link Offsets}), so that every node turns to the next day at the same instant whatever its own
 * clock says. When a range is needed, one node (the one {@link Next#REFILL} goes to, for
 * {@code claimMillis}) leases it; the others {@link Next#WAIT}. Thread-safe.
 */
public interface DayCounter {

    /**
     * Takes the day's next number if the count holds a range of the day, not used up.
     *
     * @param offsets       the zone the day is counted in
     * @param prefetchBelow when fewer numbers than this are left after this one, this caller is
     *                      asked to lease the next range ({@link Next#PREFETCH}), unless another
     *                      caller is already asked
     * @param claimMillis   how long the caller asked to lease a range has before another is asked
     * @throws dev.distlock.id.IdGenerationException when the store cannot be asked; no number was
     *                                               taken
     */
    Taken take(Offsets offsets, long prefetchBelow, long claimMillis);

    /**
     * Installs {@code range} for {@code day}, on the server that asked for it ({@link Taken#server()}):
     * after the current range if that is not used up, in its place otherwise. Refused (a gap, never a
     * repeat) when the day or the server changed since, when the count already holds this range or a
     * later one of the day (a retried call), or when the current range is not used up and this one
     * does not follow it. Unless the day or the server changed, the day's claim to lease a range
     * ends here, installed or not.
     *
     * @return whether the range was installed
     * @throws RuntimeException as the store failed: it may or may not be installed
     */
    boolean install(Offsets offsets, long day, SegmentStore.Range range, String server);

    /** What the caller of {@link #take} does next. */
    enum Next {
        /** Nothing: a number was taken. */
        NONE,
        /** A number was taken and few are left: this caller leases the next range, in the background. */
        PREFETCH,
        /** No number: the count holds no range of the day (or it is used up); this caller leases one. */
        REFILL,
        /** No number: another caller is leasing the day's range; try again in a moment. */
        WAIT
    }

    /**
     * The answer of {@link #take}.
     *
     * @param day    the store's day, in days since 1970-01-01 in the zone
     * @param serial the number taken, from 1; 0 if none
     * @param next   what the caller does next
     * @param server the server that answered, to pass to {@link #install}
     */
    record Taken(long day, long serial, Next next, String server) {
    }

    /**
     * The zone's offset from UTC until {@code changesAt}, and after it: the counter reads the
     * instant from the store's clock, the engine knows the zone's rules.
     *
     * @param before    the offset in seconds, before {@code changesAt}
     * @param changesAt the zone's next transition, in epoch seconds ({@link Long#MAX_VALUE}: none)
     * @param after     the offset in seconds from {@code changesAt}
     */
    record Offsets(int before, long changesAt, int after) {
    }
}
