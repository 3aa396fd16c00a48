package dev.distlock.example.shop.bench;

import dev.distlock.testkit.OneWayDelays;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The benchmark's results as markdown: the machine and the command, a table of variant × servers
 * (per round, then the median when there are several), the ratios the benchmark exists for, and
 * every violation.
 */
final class BenchReport {

    private final BenchOptions options;
    private final List<StormResult> results;
    private final List<BenchRow> rows;
    private final List<SoldOutRow> soldOutRows;
    private final List<String> violations;
    private final List<String> failures;

    /** @param results every storm of the run, warm-ups (round 0) included: their violations and failures count too */
    BenchReport(BenchOptions options, List<StormResult> results) {
        this.options = options;
        this.results = results.stream().filter(result -> result.round() > 0 && !result.soldOut()).toList();
        this.violations = results.stream().flatMap(result -> result.violations().stream()).toList();
        this.failures = results.stream().flatMap(result -> result.failures().stream()).toList();
        this.rows = rows(this.results, options.runs());
        this.soldOutRows = soldOutRows(results.stream().filter(result -> result.round() > 0 && result.soldOut()).toList());
    }

    /** The sold-out storms' rows, in the variants' order. */
    List<SoldOutRow> soldOutRows() {
        return soldOutRows;
    }

    private List<SoldOutRow> soldOutRows(List<StormResult> soldOut) {
        List<SoldOutRow> soldOutRows = new ArrayList<>();
        for (Variant variant : options.runs()) {
            for (int servers = 1; servers <= 2; servers++) {
                int count = servers;
                List<StormResult> cell = soldOut.stream()
                        .filter(result -> result.variant().equals(variant.name()) && result.servers() == count).toList();
                if (!cell.isEmpty()) {
                    soldOutRows.add(SoldOutRow.of(cell, row(variant.name(), count).orElse(null)));
                }
            }
        }
        return List.copyOf(soldOutRows);
    }

    /** One row per variant and number of servers, over every round, in the variants' order. */
    List<BenchRow> rows() {
        return rows;
    }

    /** What makes the run no result, warm-ups included; empty when every storm was sound. */
    List<String> violations() {
        return violations;
    }

    /** Orders a variant failed (answered neither 201 nor 409), warm-ups included. */
    List<String> failures() {
        return failures;
    }

    /**
     * @param setup what the servers shared (Redis, database), one item per line
     */
    String markdown(Instant started, Duration took, List<String> setup) {
        StringBuilder md = new StringBuilder();
        md.append("### The shop over HTTP, ").append(started.truncatedTo(ChronoUnit.MINUTES)).append("\n\n");
        md.append("- Command: `").append(options.command()).append("`\n");
        md.append("- Machine: ").append(machine()).append('\n');
        md.append(String.format(Locale.ROOT, "- Each storm: %,d orders of one unit for a fresh SKU holding %,d units, "
                        + "%d client threads (synchronous HTTP/1.1); first warm-up storms of %,d orders per server, at most %d, until "
                        + "one is no more than 10 %% faster than the one before and the servers' JIT compilers took at most 3 %% of "
                        + "their CPU in it; %d round(s); took %d s%n",
                options.orders(), options.orders(), options.clients(), options.warmupOrders(), options.warmupStorms(), options.rounds(),
                took.toSeconds()));
        setup.forEach(line -> md.append("- ").append(line).append('\n'));
        md.append("- Servers' JVM: ").append(options.serverJvmText()).append('\n');
        md.append("- Variants:\n");
        options.runs().forEach(variant -> md.append("  - ").append(variant.name()).append(": ").append(variant.describe()).append('\n'));
        md.append('\n');
        if (options.rounds() > 1) {
            for (int round = 1; round <= options.rounds(); round++) {
                int current = round;
                md.append("Round ").append(round).append(":\n\n");
                table(md, rows(results.stream().filter(result -> result.round() == current).toList(), options.runs()));
            }
            md.append("Median of ").append(options.rounds()).append(" rounds (answers and shares summed):\n\n");
        }
        table(md, rows);
        if (rows.stream().anyMatch(row -> row.section().sections() > 0)) {
            md.append("Where the serialized section goes, per order (the servers' flight recordings")
                    .append(options.rounds() > 1 ? "; medians of the rounds" : "").append("):\n\n");
            md.append(SectionBreakdown.HEADER).append('\n');
            rows.forEach(row -> md.append(row.sectionMarkdown()).append('\n'));
            md.append('\n');
        }
        if (rows.stream().anyMatch(row -> row.batches().batches() > 0)) {
            md.append("Combined batches: a section of the combined variant serves a batch of orders (the servers' ")
                    .append("`distlock.CombinedBatch` events; the database on the batches' own threads")
                    .append(options.rounds() > 1 ? "; batches summed, the rest medians of the rounds" : "").append("):\n\n");
            md.append(BatchSizes.HEADER).append('\n');
            rows.stream().filter(row -> row.batches().batches() > 0).forEach(row -> md.append(row.batchesMarkdown()).append('\n'));
            md.append('\n');
        }
        if (rows.stream().anyMatch(row -> row.redisCalls().total() > 0)) {
            md.append("Redis commands per order sent, from Redis' own count (`INFO commandstats`: a command a Lua script calls counts ")
                    .append("under its own name as well as the script's `evalsha`; order ids and numbers take theirs too")
                    .append(options.rounds() > 1 ? "; medians of the rounds" : "").append("):\n\n");
            md.append("| variant | servers | commands per order: total: the most frequent |\n|---|---:|---|\n");
            rows.forEach(row -> md.append(String.format(Locale.ROOT, "| %s | %d | %s |%n", row.variant(), row.servers(), row.redisCalls().text())));
            soldOutRows.stream().filter(row -> row.redisCalls().total() > 0).forEach(row -> md.append(String.format(Locale.ROOT,
                    "| %s, sold out | %d | %s |%n", row.variant(), row.servers(), row.redisCalls().text())));
            md.append('\n');
        }
        List<String> compiling = rows.stream().filter(row -> !Double.isNaN(row.cpu().compilerShare()))
                .map(row -> String.format(Locale.ROOT, "%s on %d: %.1f %%", row.variant(), row.servers(), row.cpu().compilerShare() * 100))
                .toList();
        if (!compiling.isEmpty()) {
            md.append("The servers' JIT compiler threads' share of their CPU in the measured storms: ")
                    .append(String.join(", ", compiling)).append(".\n\n");
        }
        if (!soldOutRows.isEmpty()) {
            md.append(String.format(Locale.ROOT, "Sold out: %,d orders for a SKU holding %,d units (four orders for every unit), "
                    + "two servers, after each round's storms", options.soldOutOrders(), options.soldOutStock()))
                    .append(options.rounds() > 1 ? "; medians of the rounds" : "").append(":\n\n");
            md.append(SoldOutRow.HEADER).append('\n');
            soldOutRows.forEach(row -> md.append(row.markdown()).append('\n'));
            md.append('\n');
        }
        List<String> ratios = ratios();
        if (!ratios.isEmpty()) {
            md.append("Orders/s ratios:\n\n");
            ratios.forEach(ratio -> md.append("- ").append(ratio).append('\n'));
            md.append('\n');
        }
        if (!failures.isEmpty()) {
            md.append("Failed orders (answered neither 201 nor 409):\n\n");
            failures.forEach(failure -> md.append("- ").append(failure).append('\n'));
            md.append('\n');
        }
        if (violations.isEmpty()) {
            md.append("Every storm, warm-ups included: 201s + stock left = stock")
                    .append(failures.isEmpty() ? ", and no answer but 201 or 409.\n" : ".\n");
        } else {
            md.append("**VIOLATIONS — these figures are no result:**\n\n");
            violations.forEach(violation -> md.append("- ").append(violation).append('\n'));
        }
        return md.toString();
    }

    /** The comparisons the benchmark is for, where both sides were measured. */
    List<String> ratios() {
        List<String> ratios = new ArrayList<>();
        ratio("distlock", 2, "row-lock", 2, "distlock / row-lock, two servers").ifPresent(ratios::add);
        ratio("distlock", 1, "row-lock", 1, "distlock / row-lock, one server").ifPresent(ratios::add);
        ratio("distlock", 2, "distlock", 1, "distlock, two servers / one server").ifPresent(ratios::add);
        ratio("striped", 2, "distlock", 2, "striped / distlock, two servers").ifPresent(ratios::add);
        ratio("combined", 2, "distlock", 2, "combined / distlock, two servers").ifPresent(ratios::add);
        ratio("combined", 2, "row-lock", 2, "combined / row-lock, two servers").ifPresent(ratios::add);
        ratio("distlock", 2, "redisson", 2, "distlock / redisson, two servers").ifPresent(ratios::add);
        for (Duration delay : options.redisDelays()) {
            String suffix = " @" + OneWayDelays.millis(delay) + "ms";
            ratio("distlock" + suffix, 2, "redisson" + suffix, 2, "distlock / redisson, two servers, Redis " + OneWayDelays.millis(delay)
                    + " ms away").ifPresent(ratios::add);
            ratio("distlock" + suffix, 2, "distlock", 2, "distlock with Redis " + OneWayDelays.millis(delay) + " ms away / on loopback, two servers")
                    .ifPresent(ratios::add);
        }
        for (Duration delay : options.databaseDelays()) {
            String suffix = " db@" + OneWayDelays.millis(delay) + "ms";
            String away = OneWayDelays.millis(delay) + " ms away";
            ratio("striped" + suffix, 2, "distlock" + suffix, 2, "striped / distlock, two servers, the database " + away).ifPresent(ratios::add);
            ratio("distlock" + suffix, 2, "row-lock" + suffix, 2, "distlock / row-lock, two servers, the database " + away)
                    .ifPresent(ratios::add);
            ratio("distlock" + suffix, 2, "distlock", 2, "distlock with the database " + away + " / on loopback, two servers")
                    .ifPresent(ratios::add);
            ratio("combined" + suffix, 2, "row-lock" + suffix, 2, "combined / row-lock, two servers, the database " + away)
                    .ifPresent(ratios::add);
            ratio("combined" + suffix, 2, "striped" + suffix, 2, "combined / striped, two servers, the database " + away)
                    .ifPresent(ratios::add);
        }
        row("combined", 2).ifPresent(combined -> row("distlock", 2).ifPresent(single -> ratios.add(String.format(Locale.ROOT,
                "combined's CPU per order / distlock's, two servers: %.2f (%.2f / %.2f ms)", combined.cpu().total() / single.cpu().total(),
                combined.cpu().total(), single.cpu().total()))));
        row("striped", 2).ifPresent(striped -> row("distlock", 2).ifPresent(single -> ratios.add(String.format(Locale.ROOT,
                "striped's CPU per order / distlock's, two servers: %.2f (%.2f / %.2f ms)", striped.cpu().total() / single.cpu().total(),
                striped.cpu().total(), single.cpu().total()))));
        soldOutRow("striped", 2).ifPresent(striped -> soldOutRow("distlock", 2).ifPresent(single -> ratios.add(String.format(Locale.ROOT,
                "striped's CPU per 409 / distlock's, two servers, sold out: %.2f (%.2f / %.2f ms)", striped.cpuPer409() / single.cpuPer409(),
                striped.cpuPer409(), single.cpuPer409()))));
        row("distlock", 2).filter(row -> row.section().sections() > 0).ifPresent(row -> ratios.add(String.format(Locale.ROOT,
                "distlock's lock held per order / its transaction, two servers: %.2f (%.3f / %.3f ms)",
                row.section().sectionPerTransaction(), row.section().sectionMillis(), row.section().transactionMillis())));
        return ratios;
    }

    private Optional<String> ratio(String variant, int servers, String baseline, int baselineServers, String label) {
        Optional<BenchRow> top = row(variant, servers);
        Optional<BenchRow> bottom = row(baseline, baselineServers);
        if (top.isEmpty() || bottom.isEmpty() || bottom.get().ordersPerSecond() <= 0) {
            return Optional.empty();
        }
        String ratio = String.format(Locale.ROOT, "%s: %.2f ×", label, top.get().ordersPerSecond() / bottom.get().ordersPerSecond());
        // Orders/s counts 201s only, so a side that failed orders is not flattered; but it did less
        // of the work the other did, and the ratio says so.
        List<String> failing = Stream.of(top.get(), bottom.get()).filter(row -> row.failed() > 0)
                .map(row -> row.variant() + " on " + row.servers() + " failed " + row.failed()).distinct().toList();
        return Optional.of(failing.isEmpty() ? ratio : ratio + " (not like for like: " + String.join(", ", failing) + " orders)");
    }

    private Optional<SoldOutRow> soldOutRow(String variant, int servers) {
        return soldOutRows.stream().filter(row -> row.variant().equals(variant) && row.servers() == servers).findFirst();
    }

    private Optional<BenchRow> row(String variant, int servers) {
        return rows.stream().filter(row -> row.variant().equals(variant) && row.servers() == servers).findFirst();
    }

    private static List<BenchRow> rows(List<StormResult> results, List<Variant> variants) {
        List<BenchRow> rows = new ArrayList<>();
        for (Variant variant : variants) {
            for (int servers = 1; servers <= 2; servers++) {
                int count = servers;
                List<StormResult> cell = results.stream()
                        .filter(result -> result.variant().equals(variant.name()) && result.servers() == count).toList();
                if (!cell.isEmpty()) {
                    rows.add(BenchRow.of(cell));
                }
            }
        }
        return rows;
    }

    private static void table(StringBuilder md, List<BenchRow> rows) {
        md.append(BenchRow.HEADER).append('\n');
        rows.forEach(row -> md.append(row.markdown()).append('\n'));
        md.append('\n');
    }

    /** Cores, CPU, JDK and OS of this machine; every process of the benchmark shares them. */
    static String machine() {
        return String.format(Locale.ROOT, "%d cores%s, %s %s, %s %s %s",
                Runtime.getRuntime().availableProcessors(), cpuModel().map(model -> " (" + model + ")").orElse(""),
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"));
    }

    private static Optional<String> cpuModel() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(line -> line.startsWith("model name")).map(line -> line.substring(line.indexOf(':') + 1).strip()).findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
