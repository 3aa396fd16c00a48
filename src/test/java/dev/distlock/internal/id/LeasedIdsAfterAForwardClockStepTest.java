package dev.distlock.internal.id;

import dev.distlock.id.IdGenerationException;
import dev.distlock.redis.RedisWorkerLeases;
import dev.distlock.testing.MovableClock;
import dev.distlock.testkit.ChildJvm;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node whose wall clock steps forward issues ids at the new time at once; a crash before Redis has recorded that
 * time must not let the next holder of the worker id issue them again. The node (a child JVM, {@link SteppedClockNode})
 * steps its clock 10 minutes forward right after a heartbeat, issues {@value #IDS_AFTER_STEP} ids and is killed
 * (SIGKILL) before the next heartbeat. Once its lease has expired, a successor with a correct clock, over the same
 * Redis and layout with a single worker id, runs through the dead node's milliseconds (its clock moved there, as ten
 * minutes of running would) and issues as many ids as it can in each of them: some 10,000 to 130,000 on this machine,
 * enough for the sequences of each millisecond to meet the dead node's.
 *
 * <p>Before the generator stayed within the record, the floor in Redis after the kill was ~594 s below the dead
 * node's last id and the successor repeated 6,527 to 85,799 of its 200,000 ids (three runs); the twin, whose dead node
 * issues past the record ({@link SnowflakeGenerator#leasedPastTheRecord}), shows that still.
 */
@Timeout(120)
class LeasedIdsAfterAForwardClockStepTest {

    private static final long LEASE_MILLIS = 6_000;
    private static final long STEP_MILLIS = Duration.ofMinutes(10).toMillis();
    private static final int IDS_AFTER_STEP = 200_000;
    private static final String NAME = "stepped";
    /** How far before and after the dead node's milliseconds the successor's clock runs. */
    private static final long MARGIN_MILLIS = 5;
    private static final int WARM_UP_IDS = 100_000;

    private static RedissonClient redis;
    private final String prefix = TestRedis.uniquePrefix("forward-step");

    @TempDir
    Path dir;

    @BeforeAll
    static void connect() {
        redis = TestRedis.newClient();
    }

    @AfterAll
    static void disconnect() {
        redis.shutdown();
    }

    @Test
    void aSuccessorNeverRepeatsTheIdsOfANodeKilledRightAfterItsClockSteppedForward() throws Exception {
        Outcome outcome = crashAfterAStepThenSucceed(SteppedClockNode.BOUNDED);
        assertEquals(0, outcome.repeated, "ids the successor issued again");
        assertTrue(outcome.floorAfterKill >= outcome.deadLastMillis, "the floor in Redis covers the dead node's last id");
        assertTrue(outcome.aboveFloorIsAboveTheDeadIds, "once its clock passes the floor, the successor issues above the dead node");
    }

    /** The twin: the dead node issues past what Redis has recorded, as before the bound; the successor repeats its ids. */
    @Test
    void twinWithoutTheBoundTheSuccessorRepeatsTheDeadNodesIds() throws Exception {
        Outcome outcome = crashAfterAStepThenSucceed(SteppedClockNode.TWIN);
        assertTrue(outcome.floorAfterKill < outcome.deadLastMillis, "the floor in Redis lags the dead node's last id");
        assertTrue(outcome.repeated > 0, "the successor issued some of the dead node's ids again");
    }

    private Outcome crashAfterAStepThenSucceed(String bound) throws Exception {
        Path file = dir.resolve("dead.ids");
        ChildJvm node = ChildJvm.start("stepped-node", SteppedClockNode.class, List.of(TestRedis.url(), prefix, NAME,
                Long.toString(LEASE_MILLIS), Long.toString(STEP_MILLIS), Integer.toString(IDS_AFTER_STEP), file.toString(),
                Long.toString(ProcessHandle.current().pid()), bound));
        String issued;
        try {
            issued = node.awaitLine(SteppedClockNode.ISSUED, 60_000);
            node.kill();
        } finally {
            node.kill();
            node.deleteOutput();
        }
        long floorAfterKill = floor();
        long[] dead = read(file);
        long deadFirst = millis(Arrays.stream(dead).min().orElseThrow());
        long deadLast = millis(Arrays.stream(dead).max().orElseThrow());
        awaitLeaseGone();

        MovableClock clock = new MovableClock();
        Attempts own = new Attempts();
        Attempts through = new Attempts();
        long aboveFloor;
        try (SnowflakeGenerator successor = SnowflakeGenerator.leased(NAME, SteppedClockNode.ONE_WORKER, clock, 10,
                RedisWorkerLeases.factory(() -> redis, prefix, LEASE_MILLIS))) {
            // On its own clock first, which also warms the generator up so that it runs at full speed below.
            for (int i = 0; i < WARM_UP_IDS && own.refused == 0; i++) {
                own.issueOne(successor);
            }
            // Its own step forward first, which it records in Redis (a round trip) before it issues there.
            clock.moveBy(Duration.ofMillis(deadFirst - LEASE_MILLIS / 2 - elapsed(clock)));
            own.issueOne(successor);
            clock.moveBy(Duration.ofMillis(deadFirst - MARGIN_MILLIS - elapsed(clock)));
            while (elapsed(clock) <= deadLast + MARGIN_MILLIS) {
                through.issueOne(successor);
            }
            clock.moveBy(Duration.ofMillis(Math.max(floor(), deadLast) + 1 - elapsed(clock)));
            aboveFloor = successor.nextId();
        } finally {
            redis.getKeys().deleteByPattern(prefix + ":*");
        }
        long[] successorIds = through.ids.build().toArray();

        Set<Long> deadIds = new HashSet<>(dead.length * 2);
        Arrays.stream(dead).forEach(deadIds::add);
        long repeated = Arrays.stream(successorIds).filter(deadIds::contains).count();
        System.out.printf("%s: dead node: %s; %,d ids after a %,d ms step in %d ms (%d..%d); floor in Redis after the kill %d (%+d ms"
                        + " from its last id). Successor on its own clock: %s; through the dead node's milliseconds: %s, %,d of them"
                        + " repeated%n", bound, issued, dead.length, STEP_MILLIS, deadLast - deadFirst + 1, deadFirst, deadLast, floorAfterKill,
                floorAfterKill - deadLast, own, through, repeated);
        return new Outcome(repeated, floorAfterKill, deadLast, aboveFloor > Arrays.stream(dead).max().orElseThrow());
    }

    private record Outcome(long repeated, long floorAfterKill, long deadLastMillis, boolean aboveFloorIsAboveTheDeadIds) {
    }

    /** What a successor's calls gave: ids, or refusals. */
    private static final class Attempts {
        final LongStream.Builder ids = LongStream.builder();
        long issued;
        long refused;
        String firstRefusal;

        void issueOne(SnowflakeGenerator generator) {
            try {
                ids.add(generator.nextId());
                issued++;
            } catch (IdGenerationException refusal) {
                refused++;
                if (firstRefusal == null) {
                    firstRefusal = refusal.getMessage();
                }
            }
        }

        @Override
        public String toString() {
            return String.format("%,d ids, %,d refusals%s", issued, refused, firstRefusal == null ? "" : " (" + firstRefusal + ")");
        }
    }

    private long floor() {
        String value = redis.<String, String>getMap(prefix + ":id:{" + NAME + "}:last", StringCodec.INSTANCE).get("0");
        return Long.parseLong(value);
    }

    private void awaitLeaseGone() throws InterruptedException {
        String key = prefix + ":id:{" + NAME + "}:worker:0";
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LEASE_MILLIS + 5_000);
        while (redis.getBucket(key, StringCodec.INSTANCE).isExists()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the dead node's lease " + key + " did not expire");
            }
            Thread.sleep(5);
        }
    }

    private static long elapsed(MovableClock clock) {
        return clock.millis() - SteppedClockNode.ONE_WORKER.epoch().toEpochMilli();
    }

    private static long millis(long id) {
        return id >>> (SteppedClockNode.ONE_WORKER.workerBits() + SteppedClockNode.ONE_WORKER.sequenceBits());
    }

    private static long[] read(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        long[] ids = new long[bytes.remaining() / Long.BYTES];
        bytes.asLongBuffer().get(ids);
        return ids;
    }
}
