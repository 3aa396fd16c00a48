package dev.distlock.twojvm;

import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutual exclusion across processes: two JVMs, each with its own Redisson client and many
 * threads, increment one Redis counter by GET and SET inside {@code locks.exclusive("counter")}.
 * The twin tests run the same without a lock and with a lock that only guards its own JVM, and
 * must see the race: this shows the first test would see one too.
 */
class TwoJvmMutualExclusionIT {

    private static final int JVMS = 2;
    private static final int THREADS = 8;
    private static final int ITERATIONS = 50;
    /** JVM start-up on two busy cores included; a healthy run takes a few seconds. */
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);
    private static final long TEST_TIMEOUT_SECONDS = 150;

    @Test
    @Timeout(value = TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
    void twoJvmsHoldingTheLockNeverOverlapAndLoseNoUpdate() throws InterruptedException {
        RunOutcome outcome = run(Guard.DISTLOCK);

        assertAll(
                () -> assertTrue(outcome.allExitedCleanly(), () -> "every contender exits 0 and reports\n" + outcome.outputs()),
                () -> assertEquals(outcome.plannedCalls(), outcome.calls(), () -> "calls completed\n" + outcome.outputs()),
                () -> assertEquals(outcome.calls(), outcome.counter(), () -> "counter, i.e. no lost update\n" + outcome.outputs()),
                () -> assertEquals(0, outcome.violations(), () -> "overlaps seen in the critical section\n" + outcome.outputs()));
    }

    @Test
    @Timeout(value = TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
    void withoutALockTheSameRunSeesTheRace() throws InterruptedException {
        assertRaceSeen(run(Guard.NONE));
    }

    @Test
    @Timeout(value = TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
    void aLockInsideEachJvmDoesNotExcludeTheOtherJvm() throws InterruptedException {
        assertRaceSeen(run(Guard.LOCAL));
    }

    private static void assertRaceSeen(RunOutcome outcome) {
        assertTrue(outcome.allExitedCleanly(), () -> "every contender exits 0 and reports\n" + outcome.outputs());
        assertEquals(outcome.plannedCalls(), outcome.calls(), () -> "calls completed\n" + outcome.outputs());
        assertTrue(outcome.counter() < outcome.calls() || outcome.violations() > 0,
                () -> "the race must be seen here, or the locked run proves nothing: "
                        + outcome.summary() + "\n" + outcome.outputs());
    }

    private static RunOutcome run(Guard guard) throws InterruptedException {
        ContenderRun run = new ContenderRun(TestRedis.url(), guard, JVMS, THREADS, ITERATIONS,
                ContenderRun.DEFAULT_PAUSE_MICROS, RUN_TIMEOUT);
        RunOutcome outcome = run.run();
        System.out.println("two-jvm mutual exclusion " + guard.description() + " (redis: " + TestRedis.origin() + "): "
                + outcome.summary());
        return outcome;
    }
}
