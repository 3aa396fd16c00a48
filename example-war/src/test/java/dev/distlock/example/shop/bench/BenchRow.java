package dev.distlock.example.shop.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * One line of the report: one variant on one or two servers, over one round or several. Orders/s
 * and latencies are medians over the rounds; answers and each server's share are summed.
 */
record BenchRow(String variant, int servers, int rounds, double ordersPerSecond, double p50Millis, double p99Millis,
                String statuses, String share, String hold) {

    static final String HEADER = """
            | variant | servers | orders/s | p50 ms | p99 ms | answers | 201s per server | lock: mean hold, time held |
            |---|---:|---:|---:|---:|---|---|---|""";

    /** The row of {@code results}: the storms of one variant on one number of servers, one per round. */
    static BenchRow of(List<StormResult> results) {
        StormResult first = results.get(0);
        Map<Integer, Integer> statuses = new TreeMap<>();
        int[] created = new int[first.servers()];
        for (StormResult result : results) {
            result.statuses().forEach((status, count) -> statuses.merge(status, count, Integer::sum));
            for (int server = 0; server < created.length; server++) {
                created[server] += result.createdPerServer().get(server);
            }
        }
        return new BenchRow(first.variant(), first.servers(), results.size(),
                median(results, StormResult::ordersPerSecond), median(results, StormResult::p50Millis),
                median(results, StormResult::p99Millis), StormResult.statusesText(statuses),
                StormResult.shareText(Arrays.stream(created).boxed().toList()),
                results.size() == 1 ? first.hold().text() : medianHold(results));
    }

    private static double median(List<StormResult> results, ToDoubleFunction<StormResult> metric) {
        double[] values = results.stream().mapToDouble(metric).sorted().toArray();
        int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }

    private static String medianHold(List<StormResult> results) {
        if (results.stream().anyMatch(result -> result.hold().meanMillis() < 0)) {
            return LockHold.NONE.text();
        }
        return new LockHold(median(results, result -> result.hold().meanMillis()), median(results, result -> result.hold().busy())).text();
    }

    String markdown() {
        return String.format(Locale.ROOT, "| %s | %d | %,.0f | %.1f | %.1f | %s | %s | %s |",
                variant, servers, ordersPerSecond, p50Millis, p99Millis, statuses, share, hold);
    }
}
