package dev.distlock.example.shop.bench;

import dev.distlock.testkit.Resp;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The commands Redis ran per order sent in one storm, by command, from its own count
 * ({@code INFO commandstats}): what a variant asks of Redis for each order, where its round trips
 * and its Redis CPU come from. Redis counts a command a Lua script calls under the command's own
 * name as well as the script's {@code evalsha}: the total is the work Redis did, not the round trips.
 * Commands run by nothing but the benchmark's reading are left out.
 *
 * @param perOrder commands per order sent, by lower-case command name, most frequent first; empty
 *                 where Redis could not be read
 */
record RedisCalls(Map<String, Double> perOrder) {

    static final RedisCalls NONE = new RedisCalls(Map.of());

    /** This many commands by name in the report's line; the rest summed as "other". */
    private static final int NAMED = 8;

    /** The benchmark's own reading, before and after each storm. */
    private static final Set<String> OWN = Set.of("info");

    RedisCalls {
        perOrder = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(perOrder));
    }

    double total() {
        return perOrder.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    double of(String command) {
        return perOrder.getOrDefault(command, 0.0);
    }

    /** {@code 3.10: evalsha 1.52, publish 0.51, subscribe 0.40, ...}; "–" where not read. */
    String text() {
        if (perOrder.isEmpty()) {
            return "–";
        }
        List<String> parts = new ArrayList<>();
        double other = 0;
        int named = 0;
        for (Map.Entry<String, Double> command : perOrder.entrySet()) {
            if (named++ < NAMED) {
                parts.add(String.format(Locale.ROOT, "%s %.2f", command.getKey(), command.getValue()));
            } else {
                other += command.getValue();
            }
        }
        if (other > 0) {
            parts.add(String.format(Locale.ROOT, "other %.2f", other));
        }
        return String.format(Locale.ROOT, "%.2f: %s", total(), String.join(", ", parts));
    }

    /** The medians over {@code storms}, command by command (0 in a storm that ran none). */
    static RedisCalls median(List<StormResult> storms) {
        List<StormResult> read = storms.stream().filter(storm -> !storm.redisCalls().perOrder().isEmpty()).toList();
        if (read.isEmpty()) {
            return NONE;
        }
        Map<String, Double> medians = new HashMap<>();
        read.forEach(storm -> storm.redisCalls().perOrder().keySet()
                .forEach(command -> medians.computeIfAbsent(command, name -> BenchRow.median(read, each -> each.redisCalls().of(name)))));
        return new RedisCalls(sorted(medians));
    }

    /** Commands run between two readings of {@link #count}, per order. */
    static RedisCalls perOrder(Map<String, Long> before, Map<String, Long> after, int orders) {
        if (before.isEmpty() || after.isEmpty() || orders <= 0) {
            return NONE;
        }
        Map<String, Double> perOrder = new HashMap<>();
        after.forEach((command, calls) -> {
            long ran = calls - before.getOrDefault(command, 0L);
            if (ran > 0 && !OWN.contains(command)) {
                perOrder.put(command, (double) ran / orders);
            }
        });
        return new RedisCalls(sorted(perOrder));
    }

    private static Map<String, Double> sorted(Map<String, Double> perOrder) {
        Map<String, Double> sorted = new LinkedHashMap<>();
        perOrder.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .forEach(command -> sorted.put(command.getKey(), command.getValue()));
        return sorted;
    }

    /**
     * Calls so far by command, read from the Redis on {@code port}; empty if it does not answer
     * (the benchmark goes on without this breakdown).
     */
    static Map<String, Long> count(int port) {
        try {
            return parse(String.valueOf(Resp.call(port, 2_000, "INFO", "commandstats")));
        } catch (RuntimeException unreadable) {
            return Map.of();
        }
    }

    /**
     * {@code cmdstat_evalsha:calls=12,usec=...} lines to calls by command; Redis 7 names a
     * subcommand {@code cmdstat_client|setname}.
     */
    static Map<String, Long> parse(String info) {
        Map<String, Long> calls = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            int start = line.indexOf("calls=", colon);
            if (colon < 0 || start < 0) {
                throw new IllegalArgumentException("not a commandstats line: " + line);
            }
            int end = line.indexOf(',', start);
            calls.put(line.substring("cmdstat_".length(), colon).toLowerCase(Locale.ROOT),
                    Long.parseLong(line.substring(start + "calls=".length(), end < 0 ? line.length() : end)));
        }
        return calls;
    }
}
