package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What makes a storm no result, and what it reports. */
class StormResultTest {

    private static StormResult storm(int stock, int finalStock, Map<Integer, Integer> statuses, List<Integer> perServer) {
        return new StormResult("distlock", perServer.size(), 1, "SKU", stock, finalStock, statuses, perServer,
                Duration.ofSeconds(2), 1.0, 2.0, Double.NaN, Double.NaN, LockHold.NONE, List.of(), Instant.EPOCH,
                Instant.EPOCH.plusSeconds(2), CpuPerOrder.NONE, CpuPerOrder.NONE, SectionBreakdown.NONE, RedisCalls.NONE, BatchSizes.NONE);
    }

    @Test
    void aSoundStormHasNoViolation() {
        StormResult storm = storm(100, 0, Map.of(201, 100), List.of(50, 50));
        assertEquals(List.of(), storm.violations());
        assertEquals(50.0, storm.ordersPerSecond(), 1e-9);
        assertEquals("50 % / 50 %", storm.shareText());
    }

    @Test
    void unitsSoldBeyondTheStockAreAViolation() {
        List<String> violations = storm(100, 0, Map.of(201, 101), List.of(101)).violations();
        assertEquals(1, violations.size());
        assertTrue(violations.get(0).contains("(+1 units)"), violations.get(0));
    }

    @Test
    void unitsNeitherSoldNorLeftAreAViolation() {
        assertEquals(1, storm(100, 1, Map.of(201, 98, 409, 2), List.of(98)).violations().size());
    }

    @Test
    void anAnswerOtherThan201Or409IsAFailedOrderNotAViolation() {
        StormResult storm = storm(100, 1, Map.of(201, 99, StormResult.NO_ANSWER, 1), List.of(99));
        assertEquals(List.of(), storm.violations(), "no unit unaccounted for");
        assertEquals(1, storm.failed());
        assertEquals(1, storm.failures().size());
        assertEquals("no-answer=1 201=99", storm.statusesText());
    }

    @Test
    void soldOutAnswersAreNoViolation() {
        assertEquals(List.of(), storm(100, 0, Map.of(201, 100, 409, 20), List.of(60, 40)).violations());
    }
}
