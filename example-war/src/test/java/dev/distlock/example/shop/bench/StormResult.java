package dev.distlock.example.shop.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * What one storm measured and what it left behind.
 *
 * @param servers          how many servers the orders went to (in turn)
 * @param round            1, 2, ...; 0 for a warm-up
 * @param statuses         answers by HTTP status; {@link #NO_ANSWER} counts requests that failed without one
 * @param createdPerServer 201s per server, in the order of the servers
 * @param wall             from the first order sent to the last answer
 * @param hold             how long distlock's lock was held, from the servers' metrics
 * @param unexpected       the first few answers that were neither 201 nor 409
 * @param started          when the first order was sent (the storm's window in the servers' recordings)
 * @param ended            when the last answer came
 * @param soldOutP50Millis the median latency of the orders answered 409 (sold out); {@code NaN} when none was
 * @param soldOutP99Millis their 99th percentile
 * @param cpu              CPU time per order placed (201), by process
 * @param cpuPerAnswer     CPU time per order sent, whatever its answer: in a sold-out storm, what 201s and 409s cost together
 * @param section          where the serialized sections went, from the servers' recordings; {@link SectionBreakdown#NONE}
 *                         until {@link #withSection}
 * @param redisCalls       the commands Redis ran per order sent; {@link RedisCalls#NONE} where not read
 * @param batches          the combined batches, from the servers' recordings; {@link BatchSizes#NONE} for the variants
 *                         without them, and until {@link #withSection}
 */
record StormResult(String variant, int servers, int round, String sku, int initialStock, int finalStock,
                   Map<Integer, Integer> statuses, List<Integer> createdPerServer, Duration wall,
                   double p50Millis, double p99Millis, double soldOutP50Millis, double soldOutP99Millis, LockHold hold,
                   List<String> unexpected, Instant started, Instant ended, CpuPerOrder cpu, CpuPerOrder cpuPerAnswer,
                   SectionBreakdown section, RedisCalls redisCalls, BatchSizes batches) {

    /** The status of a request that got no answer (a timeout, a connection refused or reset). */
    static final int NO_ANSWER = -1;

    StormResult {
        statuses = Map.copyOf(statuses);
        createdPerServer = List.copyOf(createdPerServer);
        unexpected = List.copyOf(unexpected);
    }

    StormResult withSection(SectionBreakdown breakdown, BatchSizes combined) {
        return new StormResult(variant, servers, round, sku, initialStock, finalStock, statuses, createdPerServer, wall, p50Millis,
                p99Millis, soldOutP50Millis, soldOutP99Millis, hold, unexpected, started, ended, cpu, cpuPerAnswer, breakdown, redisCalls,
                combined);
    }

    /** Whether the storm sent more orders than the SKU held units: a sold-out storm. */
    boolean soldOut() {
        return answers() > initialStock;
    }

    int count(int status) {
        return statuses.getOrDefault(status, 0);
    }

    int created() {
        return count(201);
    }

    int answers() {
        return statuses.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** 201s per wall-clock second of the storm. */
    double ordersPerSecond() {
        return wall.isZero() ? 0 : created() / (wall.toNanos() / 1e9);
    }

    /**
     * What makes this storm no result: units sold that the stock does not account for (oversold or
     * lost). Empty when the storm is sound.
     */
    List<String> violations() {
        List<String> violations = new ArrayList<>();
        if (created() + finalStock != initialStock) {
            violations.add(String.format("%s: %d orders answered 201 and %d units are left, but the stock was %d (%+d units)",
                    label(), created(), finalStock, initialStock, created() + finalStock - initialStock));
        }
        return violations;
    }

    /** Orders answered neither 201 nor 409 (an error, or no answer): the variant failed them. */
    int failed() {
        return answers() - created() - count(409);
    }

    /** What the failed orders were, for people to read; empty when none failed. */
    List<String> failures() {
        return failed() == 0 ? List.of() : List.of(String.format("%s: %d orders failed (%s); first: %s",
                label(), failed(), statusesText(), unexpected));
    }

    String label() {
        return variant + ", " + servers + (servers == 1 ? " server" : " servers") + ", "
                + (round == 0 ? "warm-up" : "round " + round) + (soldOut() ? ", sold out" : "") + " (SKU " + sku + ")";
    }

    String statusesText() {
        return statusesText(statuses);
    }

    String shareText() {
        return shareText(createdPerServer);
    }

    /** {@code 201=300} or {@code 201=290 409=10 no-answer=1}. */
    static String statusesText(Map<Integer, Integer> statuses) {
        StringJoiner text = new StringJoiner(" ");
        statuses.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry ->
                text.add((entry.getKey() == NO_ANSWER ? "no-answer" : entry.getKey().toString()) + "=" + entry.getValue()));
        return text.toString();
    }

    /** Each server's share of {@code createdPerServer}'s total, e.g. {@code 49 % / 51 %}; {@code –} for one server. */
    static String shareText(List<Integer> createdPerServer) {
        if (createdPerServer.size() < 2) {
            return "–";
        }
        int total = createdPerServer.stream().mapToInt(Integer::intValue).sum();
        StringJoiner text = new StringJoiner(" / ");
        for (int created : createdPerServer) {
            text.add(total == 0 ? "–" : Math.round(100.0 * created / total) + " %");
        }
        return text.toString();
    }
}
