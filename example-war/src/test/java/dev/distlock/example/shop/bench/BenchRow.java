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
                String statuses, int failed, String share, String hold, CpuPerOrder cpu, SectionBreakdown section,
                RedisCalls redisCalls, BatchSizes batches) {

    static final String HEADER = """
            | variant | servers | orders/s | p50 ms | p99 ms | answers | failed | 201s per server | CPU ms/order: servers + Redis + database = total (client) | lock: mean hold, time held |
            |---|---:|---:|---:|---:|---|---:|---|---|---|""";

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
                results.stream().mapToInt(StormResult::failed).sum(),
                StormResult.shareText(Arrays.stream(created).boxed().toList()),
                results.size() == 1 ? first.hold().text() : medianHold(results),
                new CpuPerOrder(median(results, result -> result.cpu().servers()), median(results, result -> result.cpu().redis()),
                        median(results, result -> result.cpu().database()), median(results, result -> result.cpu().client()),
                        median(results, result -> result.cpu().compiler())),
                medianSection(results), RedisCalls.median(results), BatchSizes.median(results.stream().map(StormResult::batches).toList()));
    }

    /** Each figure the median over the rounds, the sections summed. */
    private static SectionBreakdown medianSection(List<StormResult> results) {
        List<StormResult> recorded = results.stream().filter(result -> result.section().sections() > 0).toList();
        if (recorded.isEmpty()) {
            return SectionBreakdown.NONE;
        }
        return new SectionBreakdown(recorded.stream().mapToInt(result -> result.section().sections()).sum(),
                median(recorded, result -> result.section().sectionMillis()), median(recorded, result -> result.section().handoverMillis()),
                median(recorded, result -> result.section().lockToTransaction()),
                median(recorded, result -> result.section().transactionMillis()),
                median(recorded, result -> result.section().databaseMillis()), median(recorded, result -> result.section().databaseTrips()),
                median(recorded, result -> result.section().checkMicros()), median(recorded, result -> result.section().checkByLease()),
                median(recorded, result -> result.section().transactionToRelease()),
                median(recorded, result -> result.section().localWakeP50()), median(recorded, result -> result.section().localWakeP99()),
                median(recorded, result -> result.section().fromStore()));
    }

    /** The median of the figures that were measured; {@code NaN} when none was. */
    static double median(List<StormResult> results, ToDoubleFunction<StormResult> metric) {
        double[] values = results.stream().mapToDouble(metric).filter(value -> !Double.isNaN(value)).sorted().toArray();
        if (values.length == 0) {
            return Double.NaN;
        }
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
        return String.format(Locale.ROOT, "| %s | %d | %,.0f | %.1f | %.1f | %s | %d | %s | %s (%s) | %s |",
                variant, servers, ordersPerSecond, p50Millis, p99Millis, statuses, failed, share, cpu.text(), cpu.clientText(), hold);
    }

    /** This row's line of the combined batches' table. */
    String batchesMarkdown() {
        return batches.markdown(variant, servers);
    }

    /** This row's line of the section breakdown. */
    String sectionMarkdown() {
        return section.markdown(variant, servers);
    }
}
