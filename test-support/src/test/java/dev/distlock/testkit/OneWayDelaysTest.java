package dev.distlock.testkit;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The benchmarks' lists of one-way delays, in milliseconds. */
class OneWayDelaysTest {

    @Test
    void millisecondsWithFractionsInTheListsOrder() {
        assertEquals(List.of(Duration.ofMillis(1), Duration.ofMillis(1).dividedBy(4), Duration.ofNanos(50_000)),
                OneWayDelays.parse(" 1, 0.25 ,0.05"));
    }

    @Test
    void zeroAndEmptyMeanNone() {
        assertEquals(List.of(), OneWayDelays.parse("0"));
        assertEquals(List.of(), OneWayDelays.parse(""));
        assertEquals(List.of(Duration.ofMillis(2)), OneWayDelays.parse("0,2,,2"));
    }

    @Test
    void whatIsNoDelayIsRefusedWithThePart() {
        IllegalArgumentException word = assertThrows(IllegalArgumentException.class, () -> OneWayDelays.parse("1,fast"));
        assertTrue(word.getMessage().contains("'fast'"), word.getMessage());
        assertThrows(IllegalArgumentException.class, () -> OneWayDelays.parse("-1"));
        assertThrows(IllegalArgumentException.class, () -> OneWayDelays.parse("1001"));
        assertThrows(IllegalArgumentException.class, () -> OneWayDelays.parse("NaN"));
    }

    @Test
    void printedAsTheyAreWritten() {
        assertEquals("0.25", OneWayDelays.millis(Duration.ofMillis(1).dividedBy(4)));
        assertEquals("1", OneWayDelays.millis(Duration.ofMillis(1)));
        assertEquals("10", OneWayDelays.millis(Duration.ofMillis(10)));
        assertEquals("0.05", OneWayDelays.millis(Duration.ofNanos(50_000)));
    }
}
