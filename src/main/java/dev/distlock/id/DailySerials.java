package dev.distlock.id;

/**
 * Numbers a person can read: the day and that day's serial, e.g. {@code 20261124-000042}, unique
 * across every node sharing the name, starting again at 1 each day in the configured time zone.
 *
 * <pre>{@code
 * @Inject @GeneratedId("invoice") DailySerials invoiceNumbers;
 *
 * String number = invoiceNumbers.next().text();
 * }</pre>
 *
 * <p>Counted in Redis, so that numbers follow the order in which they were taken across all
 * nodes, and backed by ranges leased from a database table, so that no number is ever issued twice,
 * even after Redis loses its data, restarts from an older snapshot or fails over to a replica that
 * had not seen the last numbers. Numbers can be skipped (gaps), never repeated. The day is Redis's,
 * not the calling server's: every server turns to the next day at the same instant. Thread-safe.
 */
public interface DailySerials {

    /**
     * The next number of today (Redis's today, in the configured zone).
     *
     * @throws IdGenerationException when no number can be issued safely (Redis cannot be reached,
     *                               or a new range is needed and the database cannot be reached)
     */
    DailySerial next();

    /** The generator's name, as in {@link GeneratedId#value()}. */
    String name();
}
