package dev.distlock.redis;

import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.id.IdGenerationException;
import dev.distlock.testing.MovableClock;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A fixed worker id across a restart whose clock was set back (NTP correcting a clock that ran
 * ahead, a VM restored with an old clock): the new generator, a new instance over the same Redis,
 * must issue no id its predecessor issued, nor any below them. A short step back is waited out, a
 * long one refused with a message that says what happened; while it runs, the floor recorded in
 * Redis stays ahead of every id it issued, so that even a crash leaves one behind.
 */
@Timeout(60)
class FixedWorkerClockFloorTest {

    private static final String NAME = "fixed-floor";
    private static final long WORKER = 7;
    private static final long MAX_BACKWARD_MILLIS = 10;
    private static final SnowflakeLayout LAYOUT = SnowflakeLayout.DEFAULT;
    /** How long a run before the restart issues ids. */
    private static final Duration RUN = Duration.ofMillis(400);
    /** How far before the run's last id the clock is set: into the run, and within the floor's window after a crash. */
    private static final Duration STEP_INTO_RUN = Duration.ofMillis(100);

    private final RedissonClient redis = TestRedis.sharedClient();
    private final String prefix = TestRedis.uniquePrefix("fixed-floor");

    /** A fixed worker id whose clock floor is kept in {@code redis}, as {@code IdStore.fixedWorker} gives it. */
    private static SnowflakeGenerator fixed(String name, SnowflakeLayout layout, java.time.Clock clock, long maxBackwardMillis,
                                            long workerId, RedisClientSource redis, String keyPrefix) {
        return SnowflakeGenerator.leased(name, layout, clock, maxBackwardMillis, RedisFixedWorker.factory(redis, keyPrefix, workerId));
    }

    private SnowflakeGenerator start(MovableClock clock) {
        return fixed(NAME, LAYOUT, clock, MAX_BACKWARD_MILLIS, WORKER, () -> redis, prefix);
    }

    @Test
    void aRestartWithTheClockSetBackIntoItsLastRunRepeatsNoId() {
        MovableClock clock = new MovableClock();
        long[] before;
        try (SnowflakeGenerator first = start(clock)) {
            before = issueFor(first, RUN);
        }
        // While the node was down its clock was set back into the time of its run.
        setBackTo(clock, lastMillis(before) - STEP_INTO_RUN.toMillis());

        long highestBefore = Arrays.stream(before).max().orElseThrow();
        try (SnowflakeGenerator second = start(clock)) {
            for (int i = 0; i < 1_000; i++) {
                long id = second.nextId();
                if (id <= highestBefore) {
                    fail("id " + id + " after the restart is not above the last one before it (" + highestBefore + ")"
                            + (Arrays.stream(before).anyMatch(earlier -> earlier == id) ? ": issued before the restart too" : ""));
                }
            }
        }
    }

    @Test
    void aRestartWithTheClockSetBackAMinuteIsRefusedSayingSo() {
        MovableClock clock = new MovableClock();
        long last;
        try (SnowflakeGenerator first = start(clock)) {
            last = first.nextId();
        }
        clock.moveBy(Duration.ofMinutes(-1));

        try (SnowflakeGenerator second = start(clock)) {
            IdGenerationException refused = assertThrows(IdGenerationException.class, second::nextId,
                    "a clock a minute behind the last id of worker id " + WORKER + " (" + last + ")");
            for (String part : List.of("'" + NAME + "'", "worker id " + WORKER, "set back", "ms behind", prefix)) {
                assertTrue(refused.getMessage().contains(part), "the refusal names " + part + ": " + refused.getMessage());
            }
            assertThrows(IdGenerationException.class, second::nextId, "still refused while the clock is behind");

            // Once the clock is past the floor (the operator corrected it), ids come again, above the last one.
            clock.moveBy(Duration.ofMinutes(1));
            assertTrue(nextIdWithin(second, Duration.ofSeconds(10)) > last);
        }
    }

    @Test
    void aRestartAfterACrashWithTheClockSetBackWaitsOutTheFloorItLeft() {
        MovableClock clock = new MovableClock();
        AtomicBoolean crashed = new AtomicBoolean();
        long[] before;
        // The first run's Redis goes away at its end, so its close records nothing: the floor stays where the run left it.
        try (SnowflakeGenerator first = fixed(NAME, LAYOUT, clock, MAX_BACKWARD_MILLIS, WORKER, () -> {
            if (crashed.get()) {
                throw new IllegalStateException("crashed (test)");
            }
            return redis;
        }, prefix)) {
            before = issueFor(first, RUN);
            crashed.set(true);
        }
        setBackTo(clock, lastMillis(before) - STEP_INTO_RUN.toMillis());

        long highestBefore = Arrays.stream(before).max().orElseThrow();
        try (SnowflakeGenerator second = start(clock)) {
            long started = System.nanoTime();
            long id = second.nextId();
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(id > highestBefore, "id " + id + " after the restart must be above the last one before it (" + highestBefore + ")");
            assertTrue(waitedMillis <= RedisFixedWorker.WINDOW_MILLIS + 500, "waited at most the window: " + waitedMillis + " ms");
        }
    }

    @Test
    void theFloorInRedisStaysAheadOfEveryIdIssuedWhileItRuns() throws Exception {
        MovableClock clock = new MovableClock();
        try (SnowflakeGenerator generator = start(clock)) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_500);
            int checks = 0;
            while (System.nanoTime() - deadline < 0) {
                long id = generator.nextId();
                long issuedMillis = LAYOUT.decode(id).time().toEpochMilli() - LAYOUT.epoch().toEpochMilli();
                String floor = redis.<String, String>getMap(prefix + ":id:{" + NAME + "}:last", StringCodec.INSTANCE)
                        .get(String.valueOf(WORKER));
                assertTrue(floor != null && Long.parseLong(floor) >= issuedMillis,
                        "a crash now leaves a floor (" + floor + ") at or above the id's millisecond (" + issuedMillis + ")");
                checks++;
                Thread.sleep(20);
            }
            assertTrue(checks > 50, "checked " + checks + " times");
        }
    }

    /**
     * Ids in batches of 100 a millisecond apart for {@code run}: many milliseconds with ids, so that
     * a restart lands in one of them after the clock is set back, however long the restart takes.
     */
    private static long[] issueFor(SnowflakeGenerator generator, Duration run) {
        long[] ids = new long[(int) run.toMillis() * 100];
        int count = 0;
        long end = System.nanoTime() + run.toNanos();
        while (System.nanoTime() - end < 0 && count + 100 <= ids.length) {
            for (int i = 0; i < 100; i++) {
                ids[count++] = generator.nextId();
            }
            LockSupport.parkNanos(1_000_000);
        }
        return Arrays.copyOf(ids, count);
    }

    private static long lastMillis(long[] ids) {
        return LAYOUT.decode(Arrays.stream(ids).max().orElseThrow()).time().toEpochMilli();
    }

    private static void setBackTo(MovableClock clock, long epochMillis) {
        clock.moveBy(Duration.ofMillis(epochMillis - clock.millis()));
    }

    private static long nextIdWithin(SnowflakeGenerator generator, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            try {
                return generator.nextId();
            } catch (IdGenerationException stillRefused) {
                if (System.nanoTime() - deadline > 0) {
                    throw stillRefused;
                }
                Thread.onSpinWait();
            }
        }
    }
}
