package dev.distlock.internal.id;

import dev.distlock.redis.RedisWorkerLeases;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.spi.id.WorkerLeases;
import dev.distlock.testing.MovableClock;
import dev.distlock.testkit.ChildJvm;
import org.redisson.Redisson;
import org.redisson.api.RMap;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The node of {@link LeasedIdsAfterAForwardClockStepTest} that crashes; started by the test, never by hand. It leases
 * the only worker id, waits until a heartbeat has just recorded its floor (so that the next one is a third of the
 * lease away), steps its own clock forward, issues ids at once, writes them to a file and prints {@link #ISSUED}.
 * Then it waits to be killed: its lease is never given back, as after a crash.
 *
 * <p>Arguments: Redis URL, key prefix, generator name, worker lease (ms), clock step (ms), ids to issue after the
 * step, the ids file, parent pid, and {@link #TWIN} for a generator that issues past what Redis has recorded
 * ({@link SnowflakeGenerator#leasedPastTheRecord}), else {@link #BOUNDED}.
 */
public final class SteppedClockNode {

    static final String ISSUED = "ISSUED ";
    static final String BOUNDED = "bounded";
    static final String TWIN = "twin";
    /** Only one worker id: whoever takes it after this node takes this node's. */
    static final SnowflakeLayout ONE_WORKER = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 22);

    private static final int EXIT_COULD_NOT_RUN = 2;
    private static final int EXIT_NOT_KILLED = 3;
    private static final int EXIT_PARENT_GONE = 4;
    private static final long NOT_KILLED_AFTER_MILLIS = 120_000;

    private SteppedClockNode() {
    }

    public static void main(String[] args) {
        try {
            if (args.length != 9 || !List.of(BOUNDED, TWIN).contains(args[8])) {
                throw new IllegalArgumentException("expected 8 arguments and " + BOUNDED + " or " + TWIN + ", got " + List.of(args));
            }
            ChildJvm.haltWhenParentDies(Long.parseLong(args[7]), EXIT_PARENT_GONE);
            ChildJvm.haltAfter(NOT_KILLED_AFTER_MILLIS, EXIT_NOT_KILLED);
            run(args[0], args[1], args[2], Long.parseLong(args[3]), Long.parseLong(args[4]), Integer.parseInt(args[5]),
                    Path.of(args[6]), args[8].equals(TWIN));
            Thread.sleep(Long.MAX_VALUE);
        } catch (Throwable e) {
            e.printStackTrace();
            System.out.flush();
            System.exit(EXIT_COULD_NOT_RUN);
        }
    }

    private static void run(String url, String prefix, String name, long leaseMillis, long stepMillis, int count, Path file,
                            boolean twin) throws Exception {
        Config config = new Config();
        config.setThreads(2).setNettyThreads(2);
        config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(0);
        RedissonClient client = Redisson.create(config);
        MovableClock clock = new MovableClock();
        WorkerLeases leases = RedisWorkerLeases.factory(() -> client, prefix, leaseMillis);
        SnowflakeGenerator generator = twin ? SnowflakeGenerator.leasedPastTheRecord(name, ONE_WORKER, clock, 10, leases)
                : SnowflakeGenerator.leased(name, ONE_WORKER, clock, 10, leases);
        generator.nextId();
        RMap<String, String> floors = client.getMap(prefix + ":id:{" + name + "}:last", StringCodec.INSTANCE);
        String before = floors.get("0");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        while (before.equals(floors.get("0"))) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no heartbeat recorded a floor within " + leaseMillis + " ms");
            }
            Thread.sleep(2);
        }
        long floorBeforeStep = Long.parseLong(floors.get("0"));

        clock.moveBy(Duration.ofMillis(stepMillis));
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = generator.nextId();
        }
        write(file, ids);
        long floorAfterIds = Long.parseLong(floors.get("0"));
        System.out.println(ISSUED + "ids=" + count + " floorBeforeStep=" + floorBeforeStep + " floorAfterIds=" + floorAfterIds);
        System.out.flush();
    }

    private static void write(Path file, long[] ids) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(ids.length * Long.BYTES);
        buffer.asLongBuffer().put(ids);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }
}
