package dev.distlock.internal.id;

import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.id.IdGenerationException;
import dev.distlock.id.SnowflakeId;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bit split of a Snowflake id: checked when built, lossless, and with a known end. */
class SnowflakeLayoutTest {

    private static final Instant EPOCH = SnowflakeLayout.DEFAULT_EPOCH;

    @Test
    void bitsMustAddUpTo63() {
        assertAll(
                () -> assertThrows(IllegalArgumentException.class, () -> new SnowflakeLayout(EPOCH, 41, 10, 13)),
                () -> assertThrows(IllegalArgumentException.class, () -> new SnowflakeLayout(EPOCH, 41, 10, 11)),
                () -> assertThrows(IllegalArgumentException.class, () -> new SnowflakeLayout(EPOCH, 42, 10, 12)));
        IllegalArgumentException message = assertThrows(IllegalArgumentException.class, () -> new SnowflakeLayout(EPOCH, 41, 10, 13));
        assertTrue(message.getMessage().contains("must be 63"), message::getMessage);
    }

    @Test
    void timeAndSequenceNeedABitWorkerMayHaveNone() {
        assertAll(
                () -> assertThrows(IllegalArgumentException.class, () -> new SnowflakeLayout(EPOCH, 0, 41, 22)),
                () -> assertThrows(IllegalArgumentException.class, () -> new SnowflakeLayout(EPOCH, 53, 10, 0)),
                () -> assertThrows(IllegalArgumentException.class, () -> new SnowflakeLayout(EPOCH, 42, -1, 22)),
                () -> assertThrows(IllegalArgumentException.class, () -> new SnowflakeLayout(null, 41, 10, 12)));
        SnowflakeLayout oneWorker = new SnowflakeLayout(EPOCH, 41, 0, 22);
        assertEquals(0, oneWorker.maxWorker());
    }

    @Test
    void composeAndDecodeRoundTrip() {
        SplittableRandom random = new SplittableRandom(42);
        for (SnowflakeLayout layout : new SnowflakeLayout[]{
                SnowflakeLayout.DEFAULT, new SnowflakeLayout(EPOCH, 51, 10, 2), new SnowflakeLayout(EPOCH, 41, 0, 22)}) {
            for (int i = 0; i < 10_000; i++) {
                long elapsed = random.nextLong(layout.maxElapsedMillis() + 1);
                long worker = random.nextLong(layout.maxWorker() + 1);
                long sequence = random.nextLong(layout.maxSequence() + 1);

                long id = layout.compose(elapsed, worker, sequence);
                SnowflakeId parts = layout.decode(id);

                assertTrue(id >= 0, "ids are never negative");
                assertEquals(new SnowflakeId(EPOCH.plusMillis(elapsed), worker, sequence), parts, () -> layout + " id " + id);
            }
        }
    }

    @Test
    void theLargestIdOfALayoutIsLongMaxValue() {
        SnowflakeLayout layout = SnowflakeLayout.DEFAULT;
        assertEquals(Long.MAX_VALUE, layout.compose(layout.maxElapsedMillis(), layout.maxWorker(), layout.maxSequence()));
    }

    @Test
    void exhaustedAtIsTheFirstMillisecondThatNoLongerFits() {
        assertEquals(Instant.parse("2089-09-06T15:47:35.552Z"), SnowflakeLayout.DEFAULT.exhaustedAt());
        SnowflakeLayout small = new SnowflakeLayout(EPOCH, 20, 10, 33);
        assertEquals(EPOCH.plusMillis(1L << 20), small.exhaustedAt());
    }

    @Test
    void aRunOutLayoutIssuesNoId() {
        // 20 time bits last 17.5 minutes; this epoch is an hour ago.
        Clock clock = Clock.systemUTC();
        SnowflakeLayout runOut = new SnowflakeLayout(clock.instant().minus(Duration.ofHours(1)), 20, 10, 33);
        try (SnowflakeGenerator generator = SnowflakeGenerator.fixed("run-out", runOut, clock, 10, 1)) {
            IdGenerationException refused = assertThrows(IdGenerationException.class, generator::nextId);
            assertTrue(refused.getMessage().contains("ran out"), refused::getMessage);
        }
    }

    @Test
    void aFixedWorkerIdMustFitTheWorkerBits() {
        SnowflakeLayout layout = new SnowflakeLayout(EPOCH, 51, 2, 10);
        assertAll(
                () -> assertThrows(IllegalArgumentException.class, () -> SnowflakeGenerator.fixed("w", layout, Clock.systemUTC(), 10, 4)),
                () -> assertThrows(IllegalArgumentException.class, () -> SnowflakeGenerator.fixed("w", layout, Clock.systemUTC(), 10, -1)));
        try (SnowflakeGenerator generator = SnowflakeGenerator.fixed("w", layout, Clock.systemUTC(), 10, 3)) {
            assertEquals(3, layout.decode(generator.nextId()).worker());
        }
    }
}
