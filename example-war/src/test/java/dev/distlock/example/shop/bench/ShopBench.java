package dev.distlock.example.shop.bench;

import dev.distlock.example.shop.launcher.PayaraNode;
import dev.distlock.example.shop.launcher.ShopCluster;
import dev.distlock.example.shop.launcher.ShopDatabase;
import dev.distlock.testkit.DatabaseProcess;
import dev.distlock.testkit.DelayingProxy;
import dev.distlock.testkit.EmbeddedPostgres;
import dev.distlock.testkit.ServerUnavailable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The shop's HTTP benchmark. One Redis and one H2 server for the whole run; per variant, two
 * Payara Micro servers started with the variant's properties, a warm-up, then for each round a
 * storm through one server and a storm through both; then the next variant on new servers. Prints
 * a markdown table and writes it with an SVG chart to the output directory. {@code ../shop-bench.sh}
 * builds everything and calls this; it exits with 1 if any storm sold what the stock does not
 * account for. Orders answered other than 201 or 409 are no such violation (no unit went astray),
 * but the variant failed them: they are counted, shown in the table and listed under it.
 */
public final class ShopBench {

    static final String REPORT_FILE = "shop-bench.md";
    static final String CHART_FILE = "shop-bench.svg";
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);
    /**
     * How long each variant's database sessions wait for a row lock: distlock's shop waits 30 s for
     * its lock (and the raw Redisson variant as long), so the row lock does too. H2's own default
     * is 2 s, which fails orders under load that the other variants would have served.
     */
    static final Duration ROW_LOCK_WAIT = Duration.ofSeconds(30);
    /**
     * A warm-up storm sends no order after this long: at a hundred orders a second (the database 1 ms
     * away) ten storms of 10,000 orders would take 17 minutes per variant, where the JIT has long
     * compiled what it needs.
     */
    static final Duration WARMUP_STORM_LIMIT = Duration.ofSeconds(30);

    /** Warm-up is over once a warm-up storm is at most this much faster than the one before... */
    static final double STEADY = 0.10;
    /** ...and the servers' JIT compiler threads took at most this share of their CPU in it. */
    static final double COMPILING = 0.03;
    /** The servers' flight recorder settings, in the work directory. */
    static final String PROFILE_FILE = "sections.jfc";

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
        List<StormResult> storms = new ArrayList<>();
        List<StormResult> warmups = new ArrayList<>();
        List<String> setup;
        DatabaseProcess postgres = startPostgres(options);
        String databaseUrl = postgres != null ? postgres.jdbcUrl() : options.database().startsWith("jdbc:") ? options.database() : null;
        ShopCluster.Setup clusterSetup = new ShopCluster.Setup(options.payaraJar(), options.war(), options.workDir(), true, databaseUrl,
                options.serverJvm(), true);
        try (DatabaseProcess ownPostgres = postgres; ShopCluster cluster = ShopCluster.start(clusterSetup)) {
            OrderStorm storm = new OrderStorm(OrderStorm.newClient(), cluster.redis().port());
            OptionalLong databaseProcess = ownPostgres != null ? OptionalLong.of(ownPostgres.pid()) : cluster.database().processId();
            setup = List.of(cluster.describeRedis(), (ownPostgres != null ? "PostgreSQL server of the run's own (" + ownPostgres
                            + ", Maven Central's binaries, `fsync` and `synchronous_commit` off, a process per connection)"
                            : cluster.database().describe())
                            + (cluster.database().isOwnH2() ? "; every session waits up to " + ROW_LOCK_WAIT.toSeconds()
                            + " s for a row lock (`LOCK_TIMEOUT`), as long as the lock variants wait for their lock" : ""),
                    "2 Payara Micro servers per variant, started afresh with the variant's properties (logs in "
                            + options.workDir().toAbsolutePath().normalize() + ")"
                            + (options.profile() ? "; each records its locked sections with JFR (`" + PROFILE_FILE
                            + "`: a few events per order), for the section breakdown" : ""));
            Files.createDirectories(options.workDir());
            Files.writeString(options.workDir().resolve(PROFILE_FILE), Recordings.SETTINGS);
            for (Variant variant : options.runs()) {
                runVariant(cluster, databaseProcess, storm, variant, options, storms, warmups);
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
        if (!report.failures().isEmpty()) {
            System.err.println("\n" + report.failures().size() + " storm(s) with failed orders (answered neither 201 nor 409): see the report");
        }
        if (!violations.isEmpty()) {
            System.err.println("\n*** " + violations.size() + " VIOLATION(S): this run oversold or lost units; its figures are no result ***");
            violations.forEach(violation -> System.err.println("  " + violation));
        }
        return new Outcome(List.copyOf(storms), violations, markdownFile, chartFile);
    }

    /**
     * The PostgreSQL server the run starts, or {@code null} for another database. Where PostgreSQL
     * cannot run and the command line did not ask for it, the run goes on with H2 and says so.
     */
    private static DatabaseProcess startPostgres(BenchOptions options) {
        if (!options.database().equals(BenchOptions.POSTGRES)) {
            return null;
        }
        try {
            return EmbeddedPostgres.start();
        } catch (ServerUnavailable cannotRunHere) {
            if (options.databaseChosen()) {
                throw new IllegalStateException("--database postgres: PostgreSQL cannot run here (" + cannotRunHere.getMessage()
                        + "); name a database with --database URL, or take H2 with --database h2", cannotRunHere);
            }
            log("PostgreSQL cannot run here (%s): the run goes on with an H2 server; --database URL names a database elsewhere",
                    cannotRunHere.getMessage());
            return null;
        }
    }

    private static void runVariant(ShopCluster cluster, OptionalLong databaseProcess, OrderStorm storm, Variant variant,
                                   BenchOptions options, List<StormResult> storms, List<StormResult> warmups)
            throws InterruptedException, IOException {
        long starting = System.nanoTime();
        Map<String, String> properties = serverProperties(variant, cluster.database());
        List<DelayingProxy> proxies = new ArrayList<>();
        if (!variant.redisDelay().isZero()) {
            DelayingProxy proxy = DelayingProxy.start("127.0.0.1", cluster.redis().port(), variant.redisDelay());
            proxies.add(proxy);
            properties.put("distlock.redis.address", proxy.redisUrl());
        }
        int databasePort = databasePort(cluster.database().url());
        if (!variant.databaseDelay().isZero()) {
            if (databasePort == 0) {
                throw new IllegalStateException("the database's URL names no port to put a proxy in front of: " + cluster.database().url());
            }
            DelayingProxy proxy = DelayingProxy.start("127.0.0.1", databasePort, variant.databaseDelay());
            proxies.add(proxy);
            databasePort = proxy.port();
            properties.put("shop.datasource.url", withPort(properties.getOrDefault("shop.datasource.url", cluster.database().url()),
                    databasePort));
        }
        Path recordings = options.workDir().resolve("jfr").resolve(variant.name().replaceAll("[^A-Za-z0-9.]+", "-"));
        List<String> jvm = new ArrayList<>(options.extraServerJvm());
        if (options.profile()) {
            deleteRecordings(recordings);
            Files.createDirectories(recordings);
            jvm.add("-XX:StartFlightRecording=filename=" + recordings.toAbsolutePath() + "/,settings="
                    + options.workDir().resolve(PROFILE_FILE).toAbsolutePath() + ",dumponexit=true,maxsize=2g");
        }
        String prefix = variant.name().replaceAll("[^A-Za-z0-9]+", "-");
        List<StormResult> measured = new ArrayList<>();
        try {
            List<PayaraNode> servers = cluster.startServers(List.of(prefix + "-1", prefix + "-2"), 0, properties, jvm, START_TIMEOUT);
            try {
                List<String> urls = servers.stream().map(PayaraNode::url).toList();
                CpuPerOrder.Meter cpu = new CpuPerOrder.Meter(servers.stream().map(PayaraNode::pid).toList(),
                        OptionalLong.of(cluster.redis().pid()), databaseProcess);
                log("%s: 2 servers answered after %d s (%s)", variant.name(),
                        Duration.ofNanos(System.nanoTime() - starting).toSeconds(), variant.describe());
                warmUp(storm, variant, urls, options, cpu, servers, warmups);
                for (int round = 1; round <= options.rounds(); round++) {
                    measured.add(report(storm.run(variant, round, urls.subList(0, 1), options.orders(), options.clients(), cpu), servers));
                    measured.add(report(storm.run(variant, round, urls, options.orders(), options.clients(), cpu), servers));
                    if (options.soldOut() && variant.onLoopback()) {
                        measured.add(report(storm.run(variant, round, urls, options.soldOutOrders(), options.soldOutStock(),
                                options.clients(), cpu), servers));
                    }
                }
            } finally {
                cluster.stopServers(servers); // each writes its recording as it stops
            }
        } finally {
            proxies.forEach(DelayingProxy::close);
        }
        storms.addAll(options.profile() ? withSections(measured, recordings, databasePort) : measured);
    }

    /** {@code url} with the port of its host replaced: {@code jdbc:postgresql://127.0.0.1:5432/x} to {@code ...:port/x}. */
    static String withPort(String url, int port) {
        java.util.regex.Matcher hostPort = java.util.regex.Pattern.compile("//([^/:]+):(\\d+)").matcher(url);
        if (!hostPort.find()) {
            throw new IllegalArgumentException("no //host:port in " + url);
        }
        return url.substring(0, hostPort.start(2)) + port + url.substring(hostPort.end(2));
    }

    /**
     * The variant's properties for its servers, and for the H2 server started here a URL whose
     * sessions wait {@link #ROW_LOCK_WAIT} for a row lock. In the URL, because the portable way, the
     * JPA hint {@code jakarta.persistence.lock.timeout} on the locking {@code find}, does nothing on
     * H2 here: Payara's EclipseLink (4.0.7) still sends a plain {@code FOR UPDATE}, and the order
     * failed after H2's 2 s ({@link RowLockWaitIT}, tried with the hint instead). A database named
     * from outside keeps its own setting: PostgreSQL waits as long as it takes, MariaDB 50 s.
     */
    static Map<String, String> serverProperties(Variant variant, ShopDatabase database) {
        Map<String, String> properties = new HashMap<>(variant.properties());
        if (database.isOwnH2()) {
            properties.put("shop.datasource.url", database.url() + ";LOCK_TIMEOUT=" + ROW_LOCK_WAIT.toMillis());
        }
        return properties;
    }

    /**
     * Warm-up storms through both servers, {@code --warmup} orders per server each, until one goes
     * no more than {@link #STEADY} faster than the one before and the servers' JIT compilers took at
     * most {@link #COMPILING} of their CPU in it (at most {@code --warmup-storms}). With C2 on two
     * cores shared by everything, the compilers get little CPU while the storms run, and the servers
     * keep getting faster for minutes, not for a fixed number of orders; a variant with more code on
     * its path (striped stock: sixteen locks' acquisitions from Redis, a walk over stripes) compiles
     * for longer, and a speed-up rule alone measured it while C2 still took a tenth of its CPU.
     */
    private static void warmUp(OrderStorm storm, Variant variant, List<String> urls, BenchOptions options, CpuPerOrder.Meter cpu,
                               List<PayaraNode> servers, List<StormResult> warmups) throws InterruptedException {
        if (options.warmupOrders() == 0) {
            return;
        }
        double previous = 0;
        for (int warmup = 1; warmup <= options.warmupStorms(); warmup++) {
            if (options.soldOut() && variant.onLoopback()) {
                // The measured rounds end with a sold-out storm: its 409s take paths (the exception,
                // the problem answer, a look that finds too little) the servers compile then, and
                // their compiled code for the orders that sell is recompiled around them. Warmed up
                // here, they do not make the next round's storms pay for it.
                warmups.add(report(storm.run(variant, 0, urls, options.soldOutOrders(), options.soldOutStock(), options.clients(), cpu),
                        servers));
            }
            StormResult result = report(storm.runFor(variant, urls, options.warmupOrders() * urls.size(), options.clients(), cpu,
                    WARMUP_STORM_LIMIT), servers);
            warmups.add(result);
            boolean compiled = !(result.cpu().compilerShare() > COMPILING); // NaN (not readable): judged by speed alone
            if (previous > 0 && result.ordersPerSecond() <= previous * (1 + STEADY) && compiled) {
                return;
            }
            previous = result.ordersPerSecond();
        }
        if (options.warmupStorms() > 1) {
            log("%s: still more than %.0f %% faster, or compiling more than %.0f %% of the servers' CPU, after %d warm-up storms; "
                    + "measuring anyway", variant.name(), STEADY * 100, COMPILING * 100, options.warmupStorms());
        }
    }

    /** The storms with where their sections went, from the recordings the variant's servers wrote. */
    private static List<StormResult> withSections(List<StormResult> measured, Path directory, int databasePort) {
        List<Path> files = Recordings.filesIn(directory);
        if (files.isEmpty()) {
            log("no flight recordings in %s: no section breakdown", directory);
            return measured;
        }
        Recordings recordings = new Recordings(files, databasePort);
        log("read %s from %d file(s)", recordings, files.size());
        List<StormResult> broken = new ArrayList<>();
        for (StormResult result : measured) {
            StormResult with = result.withSection(recordings.breakdown(result.sku()), recordings.batches(result.sku()));
            log("%s, %d server(s), round %d: %d sections, %.3f ms each, transaction %.3f ms", with.variant(), with.servers(), with.round(),
                    with.section().sections(), with.section().sectionMillis(), with.section().transactionMillis());
            if (with.batches().batches() > 0) {
                log("%s, %d server(s), round %d: %s", with.variant(), with.servers(), with.round(), with.batches());
            }
            broken.add(with);
        }
        return broken;
    }

    /** The port of a JDBC URL's host ({@code jdbc:h2:tcp://127.0.0.1:9092/...}); 0 when it names none. */
    static int databasePort(String url) {
        java.util.regex.Matcher port = java.util.regex.Pattern.compile("//[^/:]+:(\\d+)").matcher(url);
        return port.find() ? Integer.parseInt(port.group(1)) : 0;
    }

    private static void deleteRecordings(Path directory) throws IOException {
        for (Path file : Recordings.filesIn(directory)) {
            Files.delete(file);
        }
    }

    private static StormResult report(StormResult result, List<PayaraNode> servers) {
        if (result.soldOut()) {
            log("%s, %d server(s), round %d, sold out: %s, 409 p50 %.1f ms, p99 %.1f ms, CPU ms per order sent %s (client %s), %.1f s",
                    result.variant(), result.servers(), result.round(), result.statusesText(), result.soldOutP50Millis(),
                    result.soldOutP99Millis(), result.cpuPerAnswer().text(), result.cpuPerAnswer().clientText(),
                    result.wall().toMillis() / 1000.0);
        } else {
            log("%s, %d server(s), %s: %,.0f orders/s, p50 %.1f ms, p99 %.1f ms, %s, share %s, lock %s, CPU ms/order %s (client %s), %.1f s",
                    result.variant(), result.servers(), result.round() == 0 ? "warm-up" : "round " + result.round(),
                    result.ordersPerSecond(), result.p50Millis(), result.p99Millis(), result.statusesText(), result.shareText(),
                    result.hold().text(), result.cpu().text(), result.cpu().clientText(),
                    result.wall().toMillis() / 1000.0);
            log("  Redis commands per order %s", result.redisCalls().text());
            if (!Double.isNaN(result.cpu().compilerShare())) {
                log("  of the servers' CPU, JIT compilers %.1f %%", result.cpu().compilerShare() * 100);
            }
        }
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
