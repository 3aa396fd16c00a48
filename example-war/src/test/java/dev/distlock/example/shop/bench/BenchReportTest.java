package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report: failed orders in sight and apart from violations, CPU per order, ratios across a network. */
class BenchReportTest {

    private static final BenchOptions OPTIONS = BenchOptions.parse(new String[] {"--orders", "100", "--redis-delays", "1"}, "cmd");
    private static final CpuPerOrder CPU = new CpuPerOrder(4, 0.5, 1.5, 2);

    /** A storm of 100 orders over 2 s: 201s / 2 orders/s. */
    private static StormResult storm(String variant, int servers, Map<Integer, Integer> statuses, int finalStock) {
        int created = statuses.getOrDefault(201, 0);
        List<Integer> perServer = servers == 1 ? List.of(created) : List.of(created / 2, created - created / 2);
        return new StormResult(variant, servers, 1, "SKU-" + variant, 100, finalStock, statuses, perServer, Duration.ofSeconds(2),
                10, 20, Double.NaN, Double.NaN, LockHold.NONE, List.of("500 from http://127.0.0.1:1: boom"), Instant.EPOCH,
                Instant.EPOCH.plusSeconds(2), CPU, CPU, SectionBreakdown.NONE, RedisCalls.NONE, BatchSizes.NONE);
    }

    private static List<StormResult> everyStorm(Map<Integer, Integer> redissonTwoServers, int redissonStockLeft) {
        return List.of(
                storm("distlock", 1, Map.of(201, 100), 0), storm("distlock", 2, Map.of(201, 100), 0),
                storm("redisson", 1, Map.of(201, 100), 0), storm("redisson", 2, redissonTwoServers, redissonStockLeft),
                storm("distlock @1ms", 1, Map.of(201, 100), 0), storm("distlock @1ms", 2, Map.of(201, 50), 50),
                storm("redisson @1ms", 1, Map.of(201, 100), 0), storm("redisson @1ms", 2, Map.of(201, 25), 75));
    }

    @Test
    void failedOrdersAreCountedAndListedButAreNoViolation() {
        BenchReport report = new BenchReport(OPTIONS, everyStorm(Map.of(201, 90, 500, 6, StormResult.NO_ANSWER, 4), 10));
        String markdown = report.markdown(Instant.EPOCH, Duration.ofSeconds(1), List.of("Redis"));

        assertEquals(List.of(), report.violations());
        assertEquals(1, report.failures().size());
        assertTrue(markdown.contains("| redisson | 2 | 45 | 10.0 | 20.0 | no-answer=4 201=90 500=6 | 10 |"), markdown);
        assertTrue(markdown.contains("Failed orders (answered neither 201 nor 409):"), markdown);
        assertTrue(markdown.contains("distlock / redisson, two servers: 1.11 × (not like for like: redisson on 2 failed 10 orders)"),
                markdown);
        assertTrue(markdown.contains("Every storm, warm-ups included: 201s + stock left = stock.\n"), markdown);
    }

    @Test
    void unitsUnaccountedForAreAViolation() {
        BenchReport report = new BenchReport(OPTIONS, everyStorm(Map.of(201, 100), 1));

        assertEquals(1, report.violations().size());
        assertTrue(report.markdown(Instant.EPOCH, Duration.ofSeconds(1), List.of()).contains("**VIOLATIONS"));
    }

    @Test
    void everyRowShowsCpuPerOrderByProcess() {
        String markdown = everyStormServed();

        assertTrue(markdown.contains("CPU ms/order: servers + Redis + database = total (client)"), markdown);
        assertTrue(markdown.contains("| distlock | 1 | 50 | 10.0 | 20.0 | 201=100 | 0 | – | 4.00 + 0.50 + 1.50 = 6.00 (2.00) | – |"), markdown);
        assertTrue(markdown.contains("Every storm, warm-ups included: 201s + stock left = stock, and no answer but 201 or 409."), markdown);
    }

    @Test
    void theRunsAcrossANetworkHaveRowsAndRatiosOfTheirOwn() {
        String markdown = everyStormServed();

        assertTrue(markdown.contains("| distlock @1ms | 2 | 25 |"), markdown);
        assertTrue(markdown.contains("| redisson @1ms | 1 | 50 |"), markdown);
        assertTrue(markdown.contains("distlock / redisson, two servers, Redis 1 ms away: 2.00 ×"), markdown);
        assertTrue(markdown.contains("distlock with Redis 1 ms away / on loopback, two servers: 0.50 ×"), markdown);
        assertTrue(markdown.contains("Redis behind a proxy that delays each byte 1 ms each way"), markdown);
    }

    @Test
    void soldOutStormsHaveATableOfTheirOwnWithTheCpuOfA409() {
        BenchOptions options = BenchOptions.parse(new String[] {"--orders", "100", "--redis-delays", "0", "--database-delays", "0",
                "--variants", "distlock,striped"}, "cmd");
        List<StormResult> storms = List.of(
                storm("distlock", 2, Map.of(201, 100), 0), storm("striped", 2, Map.of(201, 100), 0),
                soldOut("distlock", 0.3), soldOut("striped", 0.45));
        BenchReport report = new BenchReport(options, storms);
        String markdown = report.markdown(Instant.EPOCH, Duration.ofSeconds(1), List.of());

        assertEquals(List.of(), report.violations());
        assertEquals(2, report.rows().size(), "sold-out storms are not among the rows that sold every order");
        assertTrue(markdown.contains("Sold out: 100 orders for a SKU holding 25 units"), markdown);
        // 100 orders at 2.5 ms each = 250 ms; 25 201s at the selling storm's 6 ms = 150 ms; (250 - 150) / 75 409s = 1.33 ms.
        assertTrue(markdown.contains("| distlock | 2 | 201=25 409=75 | 3.0 | 9.0 | 2.50 | 1.33 | 0.30 |"), markdown);
        assertTrue(markdown.contains("striped's CPU per 409 / distlock's, two servers, sold out: 1.00 (1.33 / 1.33 ms)"), markdown);
    }

    /** A sold-out storm of 100 orders for 25 units, 2.5 ms of CPU per order sent, {@code locks} lock holds per order. */
    private static StormResult soldOut(String variant, double locks) {
        CpuPerOrder perAnswer = new CpuPerOrder(1.5, 0.5, 0.5, 1);
        SectionBreakdown sections = new SectionBreakdown((int) Math.round(locks * 100), 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0);
        return new StormResult(variant, 2, 1, "SO-" + variant, 25, 0, Map.of(201, 25, 409, 75), List.of(12, 13), Duration.ofSeconds(1),
                5, 10, 3, 9, LockHold.NONE, List.of(), Instant.EPOCH, Instant.EPOCH.plusSeconds(1), CPU, perAnswer, sections, RedisCalls.NONE, BatchSizes.NONE);
    }

    /** The report of a run in which every storm answered 201 to its 100 orders. */
    private static String everyStormServed() {
        return new BenchReport(OPTIONS, everyStorm(Map.of(201, 100), 0)).markdown(Instant.EPOCH, Duration.ofSeconds(1), List.of());
    }
}
