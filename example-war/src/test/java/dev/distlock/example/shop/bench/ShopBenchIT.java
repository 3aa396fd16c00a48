package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benchmark's smoke run in the build: {@code ./shop-bench.sh --quick} in this JVM, every
 * variant on a PostgreSQL server of the run's own, with a sold-out storm each, and distlock with
 * Redis and the database both 1 ms away. Each storm must sell exactly its stock through 201s alone
 * (a sold-out storm: its stock through 201s, 409s for the rest), its CPU per order and every
 * order's section must be read, and the report and chart must be written. Its figures are not
 * looked at: they are too small to mean anything.
 */
class ShopBenchIT {

    @Test
    void everyVariantSellsExactlyItsStockAndTheReportIsWritten() throws Exception {
        Path out = path("shop.work-dir").resolve("shop-bench");
        BenchOptions options = BenchOptions.quick(path("shop.payara-micro"), path("shop.war"), out.resolve("servers"), out,
                "ShopBenchIT (quick, in-process)");

        ShopBench.Outcome outcome = ShopBench.run(options);

        assertEquals(List.of(), outcome.violations());
        assertEquals(options.runs().size() * 2 + Variant.ALL.size(), outcome.storms().size(),
                "a one-server and a two-server storm per variant and delay, and a sold-out storm per variant on loopback");
        assertEquals(Variant.ALL.size() + 1, options.runs().size(), "distlock across a network too");
        assertEquals(Variant.ALL.size(), outcome.storms().stream().filter(StormResult::soldOut).count(), "sold-out storms");
        for (StormResult storm : outcome.storms().stream().filter(StormResult::soldOut).toList()) {
            assertAll(storm.label(),
                    () -> assertEquals(Map.of(201, options.soldOutStock(), 409, options.soldOutOrders() - options.soldOutStock()),
                            storm.statuses(), "the stock sold, the rest answered 409"),
                    () -> assertEquals(0, storm.finalStock(), "stock left"),
                    () -> assertTrue(storm.soldOutP50Millis() > 0 && storm.soldOutP99Millis() >= storm.soldOutP50Millis(),
                            "409 latencies " + storm.soldOutP50Millis() + " / " + storm.soldOutP99Millis()),
                    () -> assertTrue(storm.cpuPerAnswer().servers() > 0 && storm.cpuPerAnswer().database() > 0,
                            "CPU per order sent " + storm.cpuPerAnswer()),
                    () -> assertTrue(storm.section().sections() >= sectionsAtLeast(storm, options.soldOutStock()),
                            "every 201's section recorded: " + storm.section()));
        }
        for (StormResult storm : outcome.storms().stream().filter(storm -> !storm.soldOut()).toList()) {
            assertAll(storm.label(),
                    () -> assertEquals(Map.of(201, options.orders()), storm.statuses(), "every order sold: stock = orders"),
                    () -> assertEquals(storm.initialStock(), storm.created() + storm.finalStock(), "201s + stock left"),
                    () -> assertEquals(0, storm.finalStock(), "stock left"),
                    () -> assertTrue(storm.ordersPerSecond() > 0, "orders/s " + storm.ordersPerSecond()),
                    () -> assertTrue(storm.createdPerServer().stream().allMatch(created -> created > 0),
                            "every server sold: " + storm.createdPerServer()),
                    () -> assertTrue(storm.cpu().servers() > 0 && storm.cpu().redis() >= 0 && storm.cpu().database() > 0
                                    && storm.cpu().client() > 0,
                            "CPU per order read for servers, Redis, database and client: " + storm.cpu()),
                    () -> assertTrue(storm.section().sections() >= sectionsAtLeast(storm, options.orders()),
                            "every order's section recorded: " + storm.section()),
                    () -> assertTrue(storm.section().transactionMillis() > 0, "transactions recorded: " + storm.section()),
                    () -> assertTrue(storm.variant().startsWith("row-lock") || storm.redisCalls().total() >= 1,
                            "a lock in Redis takes a command per order at least: " + storm.redisCalls()),
                    () -> assertEquals(storm.variant().startsWith("combined") ? options.orders() : 0,
                            Math.round(storm.batches().meanSize() * storm.batches().batches()),
                            "orders served in recorded batches: " + storm.batches()));
        }
        String markdown = Files.readString(outcome.markdownFile());
        String chart = Files.readString(outcome.chartFile());
        for (Variant variant : options.runs()) {
            assertAll(variant.name(),
                    () -> assertTrue(markdown.contains("| " + variant.name() + " | 1 |"), markdown),
                    () -> assertTrue(markdown.contains("| " + variant.name() + " | 2 |"), markdown),
                    () -> assertTrue(chart.contains(">" + variant.name() + "</text>"), chart));
        }
        assertTrue(chart.startsWith("<svg") && chart.strip().endsWith("</svg>"), chart);
        assertTrue(markdown.contains("Where the serialized section goes"), markdown);
        assertTrue(markdown.contains("| combined | 2 | ") && markdown.contains("Combined batches"), markdown);
        assertTrue(markdown.contains("| distlock @1ms db@1ms | 2 |"), markdown);
        // PostgreSQL of the run's own wherever it can run (Linux on x86-64); elsewhere the run says so and takes H2.
        assertTrue(markdown.contains("PostgreSQL server of the run's own") || markdown.contains("H2 server"), markdown);
        assertTrue(markdown.contains("the database behind a proxy that delays each byte 1 ms each way"), markdown);
        for (Variant variant : Variant.ALL) {
            assertTrue(markdown.contains("| " + variant.name() + " | 2 | 201=" + options.soldOutStock() + " 409="), markdown);
        }
        assertTrue(markdown.contains("striped's CPU per 409 / distlock's, two servers, sold out:"), markdown);
        assertTrue(markdown.contains("CPU ms/order: servers + Redis + database = total (client)"), markdown);
        assertTrue(markdown.contains("Redis commands per order sent"), markdown);
        assertTrue(markdown.contains("| striped, sold out | 2 | "), markdown);
    }

    /** A section per order placed; combined orders share a section per batch, so one at least. */
    private static int sectionsAtLeast(StormResult storm, int placed) {
        return storm.variant().startsWith("combined") ? 1 : placed;
    }

    private static Path path(String property) {
        String value = System.getProperty(property);
        if (value == null) {
            throw new IllegalStateException("system property " + property + " is not set; run this with mvn verify in example-war");
        }
        return Path.of(value);
    }
}
