package dev.distlock.internal.id;

import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.id.IdGenerationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread waiting for the next millisecond can be descheduled between reading the clock and looking at its
 * deadline. On a loaded machine (the id soak: 4 JVMs x 8 threads on 2 cores) that pause outlasted the wait's
 * deadline, and the generator refused an id although the clock had moved on. The wait may give up only on a clock
 * read taken after its deadline.
 */
@Timeout(30)
class SnowflakePreemptedWaitTest {

    /** 1 sequence bit: two ids per millisecond, the third waits for the next one. */
    private static final SnowflakeLayout TWO_PER_MILLISECOND = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 52, 10, 1);
    private static final long PREEMPTED_MILLIS = 40;

    @Test
    void aWaiterDescheduledPastItsDeadlineStillIssuesOnceTheClockHasMovedOn() {
        StalledClock clock = new StalledClock(System.currentTimeMillis());
        try (SnowflakeGenerator generator = SnowflakeGenerator.fixed("preempted", TWO_PER_MILLISECOND, clock, 0, 1)) {
            long first = generator.nextId();
            long second = generator.nextId();
            // The next call reads the clock once to find the millisecond full, then waits; its first read in the
            // wait returns the old millisecond after a pause longer than the wait's deadline (0 + 2 ms).
            clock.stallRead(2, PREEMPTED_MILLIS);
            long third = generator.nextId();

            assertTrue(first < second && second < third, "increasing");
            assertEquals(clock.startMillis + 1, TWO_PER_MILLISECOND.decode(third).time().toEpochMilli(),
                    "the third id is in the next millisecond");
            assertEquals(0, TWO_PER_MILLISECOND.decode(third).sequence());
        }
    }

    @Test
    void aClockThatNeverMovesOnStillEndsTheWait() {
        StalledClock clock = new StalledClock(System.currentTimeMillis());
        clock.neverAdvance();
        try (SnowflakeGenerator generator = SnowflakeGenerator.fixed("stuck", TWO_PER_MILLISECOND, clock, 0, 1)) {
            generator.nextId();
            generator.nextId();
            IdGenerationException refused = assertThrows(IdGenerationException.class, generator::nextId);
            assertTrue(refused.getMessage().contains("did not reach the next millisecond"), refused::getMessage);
        }
    }

    /** Stands still at one millisecond; one chosen read pauses (the thread descheduled) and the clock moves on during it. */
    private static final class StalledClock extends Clock {
        final long startMillis;
        private final AtomicLong now;
        private final AtomicInteger readsUntilStall = new AtomicInteger(-1);
        private volatile long stallMillis;
        private volatile boolean advances = true;

        StalledClock(long startMillis) {
            this.startMillis = startMillis;
            this.now = new AtomicLong(startMillis);
        }

        /** The {@code nth} read from now returns the current millisecond after {@code pauseMillis}, and the clock then stands one later. */
        void stallRead(int nth, long pauseMillis) {
            stallMillis = pauseMillis;
            readsUntilStall.set(nth);
        }

        void neverAdvance() {
            advances = false;
        }

        @Override
        public long millis() {
            long read = now.get();
            if (readsUntilStall.get() > 0 && readsUntilStall.decrementAndGet() == 0) {
                try {
                    Thread.sleep(stallMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (advances) {
                    now.incrementAndGet();
                }
            }
            return read;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("ids need no zone");
        }
    }
}
