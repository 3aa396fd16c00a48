package dev.distlock.internal.id;

import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.testing.IdRuns;
import dev.distlock.testing.MovableClock;

import dev.distlock.id.IdGenerationException;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node's clock going back: small steps are waited out, large ones stop the generator until the clock catches up. */
@Timeout(60)
class SnowflakeClockBackwardTest {

    private static final long MAX_BACKWARD_MILLIS = 10;
    private static final Duration SMALL_STEP = Duration.ofMillis(3);
    private static final Duration LARGE_STEP = Duration.ofSeconds(2);

    @Test
    void aSmallStepBackContinuesInTheLastMillisecond() {
        MovableClock clock = new MovableClock();
        try (SnowflakeGenerator generator = SnowflakeGenerator.fixed("small-step", SnowflakeLayout.DEFAULT, clock, MAX_BACKWARD_MILLIS, 1)) {
            long before = generator.nextId();
            clock.moveBy(SMALL_STEP.negated());
            long after = generator.nextId();

            assertTrue(after > before, "increasing across the step");
            assertEquals(generator.decode(before).orElseThrow().time(), generator.decode(after).orElseThrow().time(),
                    "the id after the step is in the last millisecond issued, not in the clock's");
        }
    }

    @Test
    void smallStepsBackOnEightThreadsAreWaitedOutWithoutADuplicate() throws Exception {
        MovableClock clock = new MovableClock();
        // 6 sequence bits (64 ids per ms), so the threads use up the millisecond the clock stepped back from and must wait.
        SnowflakeLayout layout = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 47, 10, 6);
        AtomicBoolean running = new AtomicBoolean(true);
        int[] steps = new int[1];
        Thread stepper = new Thread(() -> {
            while (running.get()) {
                clock.moveBy(SMALL_STEP.negated());
                steps[0]++;
                Waits.sleep(15);
            }
        }, "clock-stepper");
        try (SnowflakeGenerator generator = SnowflakeGenerator.fixed("small-steps", layout, clock, MAX_BACKWARD_MILLIS, 2)) {
            stepper.start();
            long[][] byThread = IdRuns.onThreads(8, 20_000, generator::nextId);
            running.set(false);
            stepper.join();

            for (long[] ids : byThread) {
                IdRuns.assertStrictlyIncreasing(ids);
            }
            assertEquals(0, IdRuns.duplicates(IdRuns.concat(byThread)));
            assertTrue(steps[0] >= 3, "the clock stepped back during the run, " + steps[0] + " times");
        } finally {
            running.set(false);
        }
    }

    @Test
    void aLargeStepBackFailsLoudlyUntilTheClockCatchesUp() {
        MovableClock clock = new MovableClock();
        try (SnowflakeGenerator generator = SnowflakeGenerator.fixed("large-step", SnowflakeLayout.DEFAULT, clock, MAX_BACKWARD_MILLIS, 3)) {
            long before = generator.nextId();
            long steppedBackAt = System.nanoTime();
            clock.moveBy(LARGE_STEP.negated());

            IdGenerationException refused = assertThrows(IdGenerationException.class, generator::nextId);
            assertTrue(refused.getMessage().contains("moved back"), refused::getMessage);

            int refusals = 1;
            long recovered;
            while (true) {
                try {
                    recovered = generator.nextId();
                    break;
                } catch (IdGenerationException stillBehind) {
                    refusals++;
                    Waits.sleep(2);
                }
            }
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - steppedBackAt);

            assertTrue(recovered > before, "the first id after recovery is above the last one before the step");
            // Within the bound again, it goes on from the last millisecond issued, never before it.
            assertTrue(!generator.decode(recovered).orElseThrow().time().isBefore(generator.decode(before).orElseThrow().time()));
            assertTrue(waitedMillis >= LARGE_STEP.toMillis() - MAX_BACKWARD_MILLIS - 50,
                    "no id until the clock caught up by itself; recovered after " + waitedMillis + " ms");
            assertTrue(refusals > 10, "kept refusing while behind: " + refusals);
        }
    }
}
