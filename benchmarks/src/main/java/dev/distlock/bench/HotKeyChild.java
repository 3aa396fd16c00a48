package dev.distlock.bench;

import dev.distlock.redis.RedisLocks;
import dev.distlock.internal.core.EngineLocks;

import dev.distlock.DistributedLocks;
import dev.distlock.LocalHandoff;
import org.redisson.api.RedissonClient;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A child JVM of {@link HotKeyDriver}: connects, warms up, says READY, and on GO runs its
 * {@link HotKeyContenders} on the hot key, then writes its waits and prints its RESULT line.
 */
public final class HotKeyChild {

    /** How long each child exercises its lock path before the measured run. */
    static final long WARMUP_MILLIS = Long.getLong("bench.hot.warmup.millis", 2000);

    private HotKeyChild() {
    }

    /**
     * Child JVM: impl redisUrl key jvmIndex threads durationMillis waitsFile markerFile; warms up,
     * prints READY, starts on GO from stdin.
     */
    public static void main(String[] args) throws Exception {
        String impl = args[0];
        String redisUrl = args[1];
        String key = args[2];
        int jvm = Integer.parseInt(args[3]);
        int threads = Integer.parseInt(args[4]);
        long millis = Long.parseLong(args[5]);
        File waitsFile = new File(args[6]);
        Path markerFile = Path.of(args[7]);

        RedissonClient redisson = BenchRedis.newClient(redisUrl, Math.max(16, threads * 2 + 4));
        DistributedLocks locks = RedisLocks.builder(redisson).keyPrefix("bench-distlock")
                .localHandoff(new LocalHandoff(Integer.getInteger("bench.handoff.max", LocalHandoff.DEFAULT.maxHandoffs()),
                        Duration.ofMillis(Long.getLong("bench.handoff.millis", LocalHandoff.DEFAULT.maxTime().toMillis()))))
                .build();
        InsideMarker inside = InsideMarker.open(markerFile, jvm);
        // Warm up on a key the JVMs share, as in the measured run, so that the JIT has compiled the paths
        // the run takes (waits for another JVM, handoffs, returns to Redis at the bound) before GO.
        HotKeyContenders warmup = new HotKeyContenders(impl, redisson, locks, key + ":warm", inside, inside.privateSlot(), threads);
        warmup.run(WARMUP_MILLIS, false);
        long warmupHandoffs = ((EngineLocks) locks).executor().handoffCount();
        System.out.println("READY");
        System.out.flush();
        String go = new BufferedReader(new InputStreamReader(System.in)).readLine();
        if (!"GO".equals(go)) {
            throw new IllegalStateException("expected GO, got " + go);
        }
        HotKeyContenders measured = new HotKeyContenders(impl, redisson, locks, key, inside, inside.sharedSlot(), threads);
        measured.run(millis, true);
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(waitsFile)))) {
            measured.writeWaits(out);
        }
        redisson.getKeys().delete(key + ":warm:count");
        redisson.shutdown();
        System.out.println("RESULT " + measured.ops() + " " + measured.violations() + " " + measured.late()
                + " " + (((EngineLocks) locks).executor().handoffCount() - warmupHandoffs));
        System.out.flush();
        System.exit(0);
    }
}
