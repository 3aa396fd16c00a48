package dev.distlock.example.shop.bench;

import dev.distlock.example.shop.launcher.PayaraNode;
import dev.distlock.example.shop.launcher.ShopCluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The shop's HTTP benchmark. One Redis and one H2 server for the whole run; per variant, two
 * Payara Micro servers started with the variant's properties, a warm-up, then for each round a
 * storm through one server and a storm through both; then the next variant on new servers. Prints
 * a markdown table and writes it with an SVG chart to the output directory. {@code ../shop-bench.sh}
 * builds everything and calls this; it exits with 1 if any storm sold what the stock does not
 * account for or answered other than 201 or 409.
 */
public final class ShopBench {

    static final String REPORT_FILE = "shop-bench.md";
    static final String CHART_FILE = "shop-bench.svg";
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);

    /** What a run left: the measured storms (warm-ups not among them), every violation (theirs too) and the files written. */
    record Outcome(List<StormResult> storms, List<String> violations, Path markdownFile, Path chartFile) {
    }

    private ShopBench() {
    }

    public static void main(String[] args) throws InterruptedException, IOException {
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.out.println(BenchOptions.USAGE);
            return;
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args, (System.getProperty("shop.bench.command", "ShopBench") + " " + String.join(" ", args)).strip());
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        Outcome outcome = run(options);
        if (!outcome.violations().isEmpty()) {
            System.exit(1);
        }
    }

    /** Runs the benchmark as {@code options} say, prints and writes the report, and returns what it measured. */
    static Outcome run(BenchOptions options) throws InterruptedException, IOException {
        Instant started = Instant.now();
        long startedNanos = System.nanoTime();
        OrderStorm storm = new OrderStorm(OrderStorm.newClient());
        List<StormResult> storms = new ArrayList<>();
        List<StormResult> warmups = new ArrayList<>();
        List<String> setup;
        ShopCluster.Setup clusterSetup = new ShopCluster.Setup(options.payaraJar(), options.war(), options.workDir(), true, null);
        try (ShopCluster cluster = ShopCluster.start(clusterSetup)) {
            setup = List.of(cluster.describeRedis(), cluster.database().describe(),
                    "2 Payara Micro servers per variant, started afresh with the variant's properties and the launcher's JVM options"
                            + " (as ./shop.sh: C1 only, serial GC; logs in "
                            + options.workDir().toAbsolutePath().normalize() + ")");
            for (Variant variant : options.variants()) {
                runVariant(cluster, storm, variant, options, storms, warmups);
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - startedNanos);

        List<StormResult> all = new ArrayList<>(warmups);
        all.addAll(storms);
        BenchReport report = new BenchReport(options, all);
        List<String> violations = report.violations();
        String markdown = report.markdown(started, took, setup);
        Files.createDirectories(options.out());
        Path markdownFile = options.out().resolve(REPORT_FILE);
        Path chartFile = options.out().resolve(CHART_FILE);
        Files.writeString(markdownFile, markdown);
        Files.writeString(chartFile, BarChart.svg("The shop over HTTP: orders per second", report.rows()));

        System.out.println();
        System.out.println(markdown);
        System.out.println("Written: " + markdownFile.toAbsolutePath().normalize() + ", " + chartFile.toAbsolutePath().normalize());
        if (!violations.isEmpty()) {
            System.err.println("\n*** " + violations.size() + " VIOLATION(S): this run oversold, lost units or failed requests; its figures are no result ***");
            violations.forEach(violation -> System.err.println("  " + violation));
        }
        return new Outcome(List.copyOf(storms), violations, markdownFile, chartFile);
    }

    private static void runVariant(ShopCluster cluster, OrderStorm storm, Variant variant, BenchOptions options,
                                   List<StormResult> storms, List<StormResult> warmups) throws InterruptedException {
        long starting = System.nanoTime();
        List<PayaraNode> servers = cluster.startServers(List.of(variant.name() + "-1", variant.name() + "-2"), 0,
                variant.properties(), START_TIMEOUT);
        try {
            List<String> urls = servers.stream().map(PayaraNode::url).toList();
            log("%s: 2 servers answered after %d s (%s)", variant.name(),
                    Duration.ofNanos(System.nanoTime() - starting).toSeconds(), variant.describe());
            if (options.warmupOrders() > 0) {
                warmups.add(report(storm.run(variant, 0, urls, options.warmupOrders() * urls.size(), options.clients()), servers));
            }
            for (int round = 1; round <= options.rounds(); round++) {
                storms.add(report(storm.run(variant, round, urls.subList(0, 1), options.orders(), options.clients()), servers));
                storms.add(report(storm.run(variant, round, urls, options.orders(), options.clients()), servers));
            }
        } finally {
            cluster.stopServers(servers);
        }
    }

    private static StormResult report(StormResult result, List<PayaraNode> servers) {
        log("%s, %d server(s), %s: %,.0f orders/s, p50 %.1f ms, p99 %.1f ms, %s, share %s, lock %s, %.1f s",
                result.variant(), result.servers(), result.round() == 0 ? "warm-up" : "round " + result.round(),
                result.ordersPerSecond(), result.p50Millis(), result.p99Millis(), result.statusesText(), result.shareText(),
                result.hold().text(),
                result.wall().toMillis() / 1000.0);
        for (String violation : result.violations()) {
            System.err.println("[shop-bench] VIOLATION " + violation + "; server logs: "
                    + servers.stream().map(server -> server.log().toString()).toList());
        }
        return result;
    }

    private static void log(String format, Object... values) {
        System.out.println("[shop-bench " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + "] " + String.format(Locale.ROOT, format, values));
    }
}
