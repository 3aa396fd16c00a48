package dev.distlock.example.shop.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One line of the sold-out table: one variant's sold-out storms (four orders for every unit), over
 * the rounds. What a buyer who comes too late waits for, and what the machine spends on telling him.
 *
 * @param answers          answers by status, summed over the rounds
 * @param soldOutP50Millis the median latency of a 409, median over the rounds
 * @param soldOutP99Millis its 99th percentile, median over the rounds
 * @param cpuPerOrder      CPU per order sent, 201 or 409, servers + Redis + database, median over the rounds
 * @param cpuPer409        CPU per 409: the storm's CPU less its 201s at the CPU per order of the variant's storms
 *                         that sold every order (same run, same servers), over the 409s; {@code NaN} without those storms
 * @param locksPerOrder    lock holds per order sent, from the section recordings; {@code NaN} where none were recorded
 * @param redisCalls       Redis commands per order sent, medians over the rounds
 */
record SoldOutRow(String variant, int servers, String answers, double soldOutP50Millis, double soldOutP99Millis,
                  double cpuPerOrder, double cpuPer409, double locksPerOrder, RedisCalls redisCalls) {

    static final String HEADER = """
            | variant | servers | answers | 409 p50 ms | 409 p99 ms | CPU ms per order sent | CPU ms per 409 | locks held per order sent |
            |---|---:|---|---:|---:|---:|---:|---:|""";

    /**
     * @param storms   the variant's sold-out storms on one number of servers, one per round
     * @param selling  the row of the same variant's storms that sold every order on as many servers, or {@code null}
     */
    static SoldOutRow of(List<StormResult> storms, BenchRow selling) {
        StormResult first = storms.get(0);
        Map<Integer, Integer> statuses = new TreeMap<>();
        storms.forEach(storm -> storm.statuses().forEach((status, count) -> statuses.merge(status, count, Integer::sum)));
        double per201 = selling == null ? Double.NaN : selling.cpu().total();
        return new SoldOutRow(first.variant(), first.servers(), StormResult.statusesText(statuses),
                BenchRow.median(storms, StormResult::soldOutP50Millis), BenchRow.median(storms, StormResult::soldOutP99Millis),
                BenchRow.median(storms, storm -> storm.cpuPerAnswer().total()),
                BenchRow.median(storms, storm -> cpuPer409(storm.cpuPerAnswer().total() * storm.answers(), storm.created(), per201, storm.count(409))),
                BenchRow.median(storms, storm -> storm.section().sections() == 0 ? Double.NaN : (double) storm.section().sections() / storm.answers()),
                RedisCalls.median(storms));
    }

    /** The CPU a storm spent in all, less what its {@code created} orders cost at {@code per201} each, per 409. */
    static double cpuPer409(double total, int created, double per201, int conflicts) {
        return conflicts == 0 ? Double.NaN : (total - created * per201) / conflicts;
    }

    String markdown() {
        return String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s |", variant, servers, answers,
                number(soldOutP50Millis, "%.1f"), number(soldOutP99Millis, "%.1f"), number(cpuPerOrder, "%.2f"),
                number(cpuPer409, "%.2f"), number(locksPerOrder, "%.2f"));
    }

    private static String number(double value, String format) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "–" : String.format(Locale.ROOT, format, value);
    }
}
