package dev.distlock.internal.id;

import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.testing.IdRuns;

import dev.distlock.id.SnowflakeId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One Snowflake generator with a fixed worker id: many threads, full milliseconds. */
@Timeout(60)
class SnowflakeGeneratorTest {

    private static final int THREADS = 8;

    @Test
    void idsIncreasePerThreadAndAreUniqueOnEightThreads() throws Exception {
        int perThread = 100_000;
        try (SnowflakeGenerator generator = SnowflakeGenerator.fixed("eight-threads", SnowflakeLayout.DEFAULT,
                Clock.systemUTC(), 10, 7)) {
            long[][] byThread = IdRuns.onThreads(THREADS, perThread, generator::nextId);

            for (long[] ids : byThread) {
                IdRuns.assertStrictlyIncreasing(ids);
            }
            long[] all = IdRuns.concat(byThread);
            assertEquals(0, IdRuns.duplicates(all), "duplicates among " + all.length + " ids");
            assertTrue(Arrays.stream(all).allMatch(id -> generator.decode(id).orElseThrow().worker() == 7));
        }
    }

    @Test
    void aFullMillisecondRollsOverToTheNextMillisecond() {
        // 2 sequence bits: 4 ids per millisecond.
        SnowflakeLayout tiny = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 51, 10, 2);
        int count = 400;
        long[] ids = new long[count];
        Instant before;
        try (SnowflakeGenerator generator = SnowflakeGenerator.fixed("overflow", tiny, Clock.systemUTC(), 0, 1)) {
            before = Instant.ofEpochMilli(System.currentTimeMillis());
            for (int i = 0; i < count; i++) {
                ids[i] = generator.nextId();
            }
        }
        Instant after = Instant.ofEpochMilli(System.currentTimeMillis());

        IdRuns.assertStrictlyIncreasing(ids);
        SnowflakeId previous = null;
        int perMillisecond = 0;
        int milliseconds = 0;
        for (long id : ids) {
            SnowflakeId parts = tiny.decode(id);
            assertTrue(parts.sequence() <= 3, "sequence fits 2 bits: " + parts);
            assertTrue(!parts.time().isBefore(before) && !parts.time().isAfter(after), "time within the run: " + parts);
            if (previous != null && parts.time().equals(previous.time())) {
                assertEquals(previous.sequence() + 1, parts.sequence(), "sequence counts up within a millisecond");
                perMillisecond++;
            } else {
                assertTrue(previous == null || parts.time().isAfter(previous.time()), "time never goes back");
                perMillisecond = 1;
                milliseconds++;
            }
            assertTrue(perMillisecond <= 4, "at most 4 ids in one millisecond");
            previous = parts;
        }
        assertTrue(milliseconds >= count / 4, count + " ids need at least " + count / 4 + " milliseconds, used " + milliseconds);
    }
}
