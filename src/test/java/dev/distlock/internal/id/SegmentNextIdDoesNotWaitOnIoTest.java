package dev.distlock.internal.id;

import dev.distlock.spi.id.SegmentStore;

import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With a store that takes 500 ms per lease, {@code nextId()} at full speed does not wait on it once
 * the step has grown: the next range is leased in the background while the current one serves.
 *
 * <p>Two measures that a busy shared machine cannot fake: each new range arrived while the current
 * one still had ids left, and the calls that crossed into a new range were fast. The slowest call
 * of all is printed, not asserted: on two shared cores a thread is sometimes descheduled for a few
 * hundred milliseconds in the middle of anything.
 */
@Timeout(120)
class SegmentNextIdDoesNotWaitOnIoTest {

    private static final long STORE_MILLIS = 500;
    /** A fifth of the store's time: a call that waited for a lease would take far longer. */
    private static final long MAX_CROSSING_LATENCY_MILLIS = 100;
    private static final long SLOW_CALL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * A range should last 2.5 s, so at least 1.25 s: the 90% left when the next one is requested
     * outlast the store's 500 ms with room to spare.
     */
    private static final Duration TARGET_PERIOD = Duration.ofMillis(2_500);
    private static final Duration WARM_UP = Duration.ofSeconds(10);
    private static final int MEASURED_REFILLS = 2;

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @Test
    void afterWarmUpNextIdNeverWaitsForTheSlowStore() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        RecordingStore slow = new RecordingStore(new JdbcSegmentStore(h2, tables.newSegmentTable(h2)), STORE_MILLIS);
        AtomicLong lastIssued = new AtomicLong();
        // How many ids of the current range were still unissued when each new range arrived: 0 means nextId waited for it.
        List<Long> leftWhenRangeArrived = new CopyOnWriteArrayList<>();
        SegmentStore watched = (name, step) -> {
            List<SegmentStore.Range> before = slow.leased();
            SegmentStore.Range range = slow.lease(name, step);
            if (!before.isEmpty()) {
                leftWhenRangeArrived.add(before.get(before.size() - 1).last() - lastIssued.get());
            }
            return range;
        };
        SegmentIdGenerator.Settings settings = new SegmentIdGenerator.Settings(1_000, 1_000, 1L << 32, TARGET_PERIOD, Duration.ofSeconds(30));
        try (SegmentIdGenerator generator = new SegmentIdGenerator("no-wait", watched, settings)) {
            // Warm-up and measurement run the same loop, so the step the warm-up grows fits the measured rate.
            long warmUpEnd = System.nanoTime() + WARM_UP.toNanos();
            long giveUpAt = warmUpEnd + TimeUnit.SECONDS.toNanos(60);
            int leasedBefore = -1;
            long maxNanos = 0;
            long slowCalls = 0;
            long calls = 0;
            Map<Long, Long> slowCallNanosById = new HashMap<>();
            long previous = 0;
            while (leasedBefore < 0 || slow.leaseCount() < leasedBefore + MEASURED_REFILLS) {
                long started = System.nanoTime();
                long id = generator.nextId();
                long took = System.nanoTime() - started;
                lastIssued.lazySet(id);
                if (id <= previous) {
                    throw new AssertionError("id " + id + " is not above " + previous);
                }
                previous = id;
                if (leasedBefore < 0) {
                    if (started - warmUpEnd >= 0) {
                        leasedBefore = slow.leaseCount();
                    }
                    continue;
                }
                calls++;
                maxNanos = Math.max(maxNanos, took);
                if (took > SLOW_CALL_NANOS) {
                    slowCalls++;
                    slowCallNanosById.put(id, took);
                }
                if (started - giveUpAt > 0) {
                    break;
                }
            }
            int refills = slow.leaseCount() - leasedBefore;
            List<Long> measuredLeft = leftWhenRangeArrived.subList(leftWhenRangeArrived.size() - refills, leftWhenRangeArrived.size());
            // The ranges the measured calls crossed into; the last one leased may not be in use yet.
            List<SegmentStore.Range> ranges = slow.leased();
            List<Long> crossingMillis = new ArrayList<>();
            for (SegmentStore.Range range : ranges.subList(leasedBefore, ranges.size())) {
                if (range.first() <= previous) {
                    crossingMillis.add(TimeUnit.NANOSECONDS.toMillis(slowCallNanosById.getOrDefault(range.first(), 0L)));
                }
            }
            System.out.printf("steady state: %,d calls over %d refills of a %d ms store; calls into a new range took %s ms; "
                            + "ids left in the range when the next arrived %s (warm-up: %s); slowest call %.3f ms, "
                            + "%d calls over 1 ms; step %,d%n",
                    calls, refills, STORE_MILLIS, crossingMillis, measuredLeft,
                    leftWhenRangeArrived.subList(0, leftWhenRangeArrived.size() - refills), maxNanos / 1e6, slowCalls,
                    generator.currentStep());

            assertTrue(refills >= MEASURED_REFILLS, "ranges were refilled while measuring: " + refills);
            assertTrue(measuredLeft.stream().allMatch(left -> left > 0), "each new range arrived before the current one ran out: " + measuredLeft);
            assertTrue(crossingMillis.size() >= MEASURED_REFILLS - 1, "measured calls crossed into new ranges: " + crossingMillis);
            assertTrue(crossingMillis.stream().allMatch(millis -> millis < MAX_CROSSING_LATENCY_MILLIS),
                    "calls that crossed into a new range took " + crossingMillis + " ms, with a store that takes " + STORE_MILLIS + " ms per lease");
        }
    }
}
