package dev.distlock.virtualthreads;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.ChildJvm;
import dev.distlock.testkit.OverlapDetector;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs in a JVM of Java 21 or later ({@link VirtualThreadsIT}): locked calls on a few hot keys and
 * many cold ones, one virtual thread per call, through the programmatic API and through
 * {@code @Locked} in Weld SE, with a flight recording of pinned virtual threads (the JVM's first
 * calls, while classes are first initialized, counted apart: COLD); then the same
 * calls on virtual threads and on a pool of platform threads, timed; then the calls with no lock
 * (the twin, which must lose updates). Prints one line per fact for the test to judge:
 *
 * <pre>
 * RESULT phase=api threads=virtual calls=10000 failures=0 violations=0 lost=0 inexactKeys=0 millis=2345
 * COLD total=7 distlock=4 monitorEnterDistlock=3
 * PINNED total=0 distlock=0 monitorEnterDistlock=0
 * </pre>
 *
 * Arguments: {@code redisUrl calls hotKeys coldKeys rounds poolSize jfrFile parentPid}.
 */
public final class VirtualThreadStorm {

    /** How long a call may wait for its lock: the hot keys' queues are thousands long. */
    static final long WAIT_MILLIS = 120_000;
    /** How long each section holds between reading and writing its counter. */
    private static final long PAUSE_NANOS = 50_000;
    /** What marks the calls' virtual threads in the recording. */
    private static final String THREAD_PREFIX = "vt-storm-";
    private static final long DEADLINE_MILLIS = TimeUnit.MINUTES.toMillis(10);

    private VirtualThreadStorm() {
    }

    public static void main(String[] args) throws Exception {
        ChildJvm.haltWhenParentDies(Long.parseLong(args[7]), 3);
        ChildJvm.haltAfter(DEADLINE_MILLIS, 4);
        String redisUrl = args[0];
        List<String> plan = plan(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        int rounds = Integer.parseInt(args[4]);
        int poolSize = Integer.parseInt(args[5]);
        Path jfr = Path.of(args[6]);
        String prefix = "vt-" + Long.toHexString(System.nanoTime());
        System.out.println("JAVA version=" + Runtime.version() + " calls=" + plan.size() + " hotKeys=" + args[2]
                + " coldKeys=" + args[3] + " carriers=" + Runtime.getRuntime().availableProcessors());

        Config config = new Config();
        config.useSingleServer().setAddress(redisUrl);
        RedissonClient redisson = Redisson.create(config);
        try (DistributedLocks locks = RedisLocks.builder(redisson).keyPrefix(prefix + "-api").build()) {
            Consumer<String> viaApi = key -> locks.exclusive(key).waitTime(Duration.ofMillis(WAIT_MILLIS)).run(() -> section(key));

            Instant warm;
            try (Recording recording = pinRecording()) {
                recording.start();
                // The JVM's first locked calls: thousands of virtual threads wait at once for the
                // first use of classes (their initialization), which pins them on every JDK.
                report("api-cold", "virtual", plan, virtualThreads(), viaApi);
                try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.redis.address", redisUrl,
                        "distlock.key-prefix", prefix + "-cdi"), LockedCounters.class)) {
                    LockedCounters bean = weld.bean(LockedCounters.class);
                    LockedCounters.detectors = Map.of("warm-up", new OverlapDetector(0));
                    bean.section("warm-up"); // one call on this platform thread: the interceptor's classes are in use
                    warm = Instant.now();
                    report("cdi", "virtual", plan, virtualThreads(), bean::section);
                }
                report("api", "virtual", plan, virtualThreads(), viaApi);
                recording.stop();
                recording.dump(jfr);
            }
            countPins(jfr, warm);

            for (int round = 1; round <= rounds; round++) {
                ExecutorService pool = Executors.newFixedThreadPool(poolSize);
                try {
                    report("throughput-" + round, "platform-" + poolSize, plan, pool::execute, viaApi);
                } finally {
                    pool.shutdown();
                }
                report("throughput-" + round, "virtual", plan, virtualThreads(), viaApi);
            }
        } finally {
            redisson.shutdown();
        }
        report("unlocked", "virtual", plan, virtualThreads(), VirtualThreadStorm::section);
        System.exit(0);
    }

    /** {@code calls} keys, shuffled: half of them on the hot keys, the other half spread over the cold ones. */
    static List<String> plan(int calls, int hotKeys, int coldKeys) {
        List<String> plan = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            plan.add(i % 2 == 0 ? "hot-" + (i / 2) % hotKeys : "cold-" + (i / 2) % coldKeys);
        }
        Collections.shuffle(plan, new Random(20261125));
        return plan;
    }

    /** This run's detectors, one per key. */
    private static Map<String, OverlapDetector> detectors;

    private static void section(String key) {
        detectors.get(key).section();
    }

    /** Starts each task on a virtual thread of its own. */
    private static java.util.concurrent.Executor virtualThreads() {
        ThreadFactory factory = VirtualThreads.factory(THREAD_PREFIX);
        return task -> factory.newThread(task).start();
    }

    /** Runs every call of {@code plan} on {@code executor}, waits for all, and prints what the counters say. */
    private static void report(String phase, String threads, List<String> plan, java.util.concurrent.Executor executor,
                               Consumer<String> call) throws InterruptedException {
        Map<String, OverlapDetector> run = new HashMap<>();
        Map<String, Integer> planned = new HashMap<>();
        for (String key : plan) {
            run.computeIfAbsent(key, k -> new OverlapDetector(PAUSE_NANOS));
            planned.merge(key, 1, Integer::sum);
        }
        detectors = run;
        LockedCounters.detectors = run;
        AtomicInteger failures = new AtomicInteger();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(plan.size());
        long started = System.nanoTime();
        for (String key : plan) {
            executor.execute(() -> {
                try {
                    call.accept(key);
                } catch (RuntimeException | Error e) {
                    failures.incrementAndGet();
                    firstFailure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            });
        }
        if (!done.await(DEADLINE_MILLIS, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(phase + ": " + done.getCount() + " calls still running");
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        long violations = 0;
        long lost = 0;
        int inexactKeys = 0;
        for (Map.Entry<String, OverlapDetector> entry : run.entrySet()) {
            OverlapDetector detector = entry.getValue();
            violations += detector.violations();
            lost += detector.sections() - detector.count();
            if (!detector.exact() || detector.count() != planned.get(entry.getKey())) {
                inexactKeys++;
            }
        }
        System.out.println("RESULT phase=" + phase + " threads=" + threads + " calls=" + plan.size() + " failures=" + failures
                + " violations=" + violations + " lost=" + lost + " inexactKeys=" + inexactKeys + " millis=" + millis
                + " callsPerSecond=" + (millis == 0 ? 0 : plan.size() * 1000L / millis));
        if (firstFailure.get() != null) {
            System.out.println("first failure of " + phase + ":");
            firstFailure.get().printStackTrace(System.out);
        }
    }

    /**
     * Pinned virtual threads (every one, however short), and monitors that the calls' virtual threads
     * waited to enter: on Java 21 to 23 such a wait pins the carrier too. Not distlock's own events:
     * while a recording takes them, JFR itself pins the virtual thread that writes a new lock name
     * into its string pool (seen once in about 8 runs, 22 ms, in {@code StringPool.storeString}
     * under {@code FlightEvents$LockWait.commit}); that is the recorder's cost, documented in
     * docs/operations.md, not distlock's path.
     */
    private static Recording pinRecording() {
        Recording recording = new Recording();
        recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
        recording.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ZERO).withStackTrace();
        for (String own : List.of("distlock.LockWait", "distlock.LockHold", "distlock.CommitCheck", "distlock.LockedTransaction")) {
            recording.disable(own);
        }
        recording.setToDisk(true);
        return recording;
    }

    /** Prints a COLD line for the events before {@code warm} (the first calls), a PINNED line for those after. */
    private static void countPins(Path jfr, Instant warm) throws java.io.IOException {
        int[] cold = new int[3];
        int[] after = new int[3];
        List<String> shown = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(jfr)) {
            String type = event.getEventType().getName();
            boolean distlock = inDistlock(event);
            int[] counts = event.getStartTime().isBefore(warm) ? cold : after;
            if (type.equals("jdk.VirtualThreadPinned")) {
                counts[0]++;
                if (distlock) {
                    counts[1]++;
                }
            } else if (type.equals("jdk.JavaMonitorEnter") && distlock && event.getThread() != null
                    && event.getThread().getJavaName() != null && event.getThread().getJavaName().startsWith(THREAD_PREFIX)) {
                counts[2]++;
            } else {
                continue;
            }
            if (distlock && shown.size() < (counts == after ? 24 : 4)) {
                shown.add((counts == cold ? "cold " : "warm ") + type + " " + event.getDuration().toNanos() / 1000 + " µs\n"
                        + frames(event));
            }
        }
        System.out.println("COLD total=" + cold[0] + " distlock=" + cold[1] + " monitorEnterDistlock=" + cold[2]);
        System.out.println("PINNED total=" + after[0] + " distlock=" + after[1] + " monitorEnterDistlock=" + after[2]);
        shown.forEach(stack -> System.out.println("EVENT " + stack));
    }

    /** Whether a frame of distlock's own code (not of these tests) is on the event's stack. */
    private static boolean inDistlock(RecordedEvent event) {
        if (event.getStackTrace() == null) {
            return false;
        }
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            String type = frame.getMethod().getType().getName();
            if (type.startsWith("dev.distlock.") && !type.startsWith("dev.distlock.virtualthreads.")
                    && !type.startsWith("dev.distlock.testkit.") && !type.startsWith("dev.distlock.testing.")) {
                return true;
            }
        }
        return false;
    }

    private static String frames(RecordedEvent event) {
        StringBuilder frames = new StringBuilder();
        List<RecordedFrame> all = event.getStackTrace().getFrames();
        for (RecordedFrame frame : all.subList(0, Math.min(25, all.size()))) {
            frames.append("    at ").append(frame.getMethod().getType().getName()).append('.').append(frame.getMethod().getName())
                    .append(':').append(frame.getLineNumber()).append('\n');
        }
        return frames.toString();
    }
}
