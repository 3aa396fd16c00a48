package dev.distlock.internal.id;

import dev.distlock.spi.id.DayCounter;
import dev.distlock.spi.id.SegmentStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The daily serial generator's own checks, with no store. What it issues, counted in real Redis
 * servers that lose their state, is in {@code redis/RedisDayCounterTest}.
 */
class DailySerialGeneratorTest {

    @Test
    void badNamesAndSettingsAreRefusedWithTheReason() {
        IllegalArgumentException name = assertThrows(IllegalArgumentException.class,
                () -> new DailySerialGenerator("no spaces", new NeverAsked(), (n, s) -> null, DailySerialGenerator.Settings.defaults()));
        assertTrue(name.getMessage().contains("no spaces"), name.getMessage());
        IllegalArgumentException step = assertThrows(IllegalArgumentException.class,
                () -> new DailySerialGenerator.Settings(ZoneOffset.UTC, SerialFormat.parse(SerialFormat.DEFAULT), 0, Duration.ofSeconds(1)));
        assertTrue(step.getMessage().contains("step"), step.getMessage());
    }

    /** A counter for checks that must fail before anything is counted. */
    private static final class NeverAsked implements DayCounter {
        @Override
        public Taken take(Offsets offsets, long prefetchBelow, long claimMillis) {
            throw new AssertionError("asked to take a number");
        }

        @Override
        public boolean install(Offsets offsets, long day, SegmentStore.Range range, String server) {
            throw new AssertionError("asked to install " + range);
        }
    }
}
