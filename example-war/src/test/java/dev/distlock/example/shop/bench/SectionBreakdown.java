package dev.distlock.example.shop.bench;

import java.util.Locale;

/**
 * Where one storm's serialized sections went, per order, from the servers' flight recordings
 * ({@link Recordings}): the section is the time one order held the SKU's lock (distlock's
 * {@code distlock.LockHold}; for the variants without distlock, the shop's {@code shop.BenchSection}:
 * from the raw lock's token, or from the row lock's {@code SELECT ... FOR UPDATE} answer, to giving
 * the lock up). Means over the storm's sections, in milliseconds unless named otherwise; {@code NaN}
 * where a step does not exist in the variant.
 *
 * @param sections          sections recorded in the storm
 * @param sectionMillis     one section, from holding the lock to giving it on
 * @param handoverMillis    between one section's end and the next one's start on the same lock, 0 where they
 *                          overlap: the time the lock was free while buyers waited for it
 * @param lockToTransaction from holding the lock to the transaction's start (the transaction's begin, the
 *                          interceptors); distlock only
 * @param transactionMillis the order's transaction, from just after its begin to its completion
 * @param databaseMillis    time spent waiting on the database inside the section (socket reads and writes)
 * @param databaseTrips     socket reads inside the section: database round trips and parts of them
 * @param checkMicros       the check before the commit, in µs; distlock only
 * @param checkByLease      share of those checks shown held by the lease without a round trip
 * @param transactionToRelease from the transaction's completion to giving the lock on (distlock), or from
 *                          the transaction's end to the raw lock's release (redisson)
 * @param localWakeP50      for locks handed over in a JVM: from the hand-over to the next holder running, median
 * @param localWakeP99      the same, 99th percentile
 * @param fromStore         share of acquisitions that asked the store rather than taking a hand-over
 */
record SectionBreakdown(int sections, double sectionMillis, double handoverMillis, double lockToTransaction,
                        double transactionMillis, double databaseMillis, double databaseTrips, double checkMicros,
                        double checkByLease, double transactionToRelease, double localWakeP50, double localWakeP99,
                        double fromStore) {

    static final SectionBreakdown NONE = new SectionBreakdown(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** The section over the transaction: what the lock costs beyond the work it guards. */
    double sectionPerTransaction() {
        return sectionMillis / transactionMillis;
    }

    static final String HEADER = """
            | variant | servers | sections | section ms | hand-over ms | lock → tx | transaction ms | of it database ms (reads) | commit check µs (by lease) | tx → release | section / tx | local wake p50 / p99 ms | from store |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|""";

    String markdown(String variant, int servers) {
        if (sections == 0) {
            return String.format(Locale.ROOT, "| %s | %d | 0 | – | – | – | – | – | – | – | – | – | – |", variant, servers);
        }
        return String.format(Locale.ROOT, "| %s | %d | %,d | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s |",
                variant, servers, sections, ms(sectionMillis), ms(handoverMillis), ms(lockToTransaction), ms(transactionMillis),
                ms(databaseMillis), number(databaseTrips, "%.1f"),
                Double.isNaN(checkMicros) ? "–" : String.format(Locale.ROOT, "%.0f (%.0f %%)", checkMicros, checkByLease * 100),
                ms(transactionToRelease), number(sectionPerTransaction(), "%.2f"),
                Double.isNaN(localWakeP50) ? "–" : String.format(Locale.ROOT, "%.3f / %.3f", localWakeP50, localWakeP99),
                Double.isNaN(fromStore) ? "–" : String.format(Locale.ROOT, "%.0f %%", fromStore * 100));
    }

    private static String ms(double millis) {
        return number(millis, "%.3f");
    }

    private static String number(double value, String format) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "–" : String.format(Locale.ROOT, format, value);
    }
}
