package dev.distlock.bench;

import dev.distlock.redis.RedisLocks;
import dev.distlock.internal.core.EngineLocks;

import dev.distlock.DistributedLocks;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.Resp;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Many keys in one JVM, distlock next to raw Redisson, both on the same Redisson client:
 * <ul>
 * <li>{@link #ownKeys}: T threads, each locking and unlocking a key of its own (one key per
 *     thread, the same key every time) for a fixed time, empty critical section: uncontended
 *     locks in parallel;</li>
 * <li>{@link #contended}: K keys, each wanted by C callers at the same moment; the K × C calls are
 *     submitted together to a pool of P threads, the C callers of a key meet at a latch before they
 *     ask for the lock, and each holds it for a short pause. An in-memory counter per key catches
 *     two holders at once (a violation).</li>
 * </ul>
 * After each run it looks at what the locks left behind, allowing a short settle time for the last
 * releases and unsubscriptions to land: lock keys in Redis, Redis pub/sub channels that still have
 * a subscriber, and distlock's local queues. Redisson's {@code redisson_unlock_latch:*} keys are
 * not lock keys (they record an unlock for retries and expire on their own) and are not counted.
 * The calling threads of both parts are {@link ManyKeysThreads}'; failed calls go to {@link CallFailures}.
 */
public final class ManyKeysDriver implements AutoCloseable {

    /** Redisson's short-lived record of an unlock request; expires by itself, is not a lock. */
    private static final String UNLOCK_LATCH_PREFIX = "redisson_unlock_latch:";
    private static final String RAW_PREFIX = "bench-raw:";
    private static final long POLL_MILLIS = 20;

    /** What was left after a run and the settle time: every count must be 0. */
    public record Leftovers(long lockKeys, long channels, int localQueues, long settleMillis) {
        boolean clean() {
            return lockKeys == 0 && channels == 0 && localQueues == 0;
        }
    }

    /** One run of {@link #ownKeys}. */
    public record OwnKeysRow(String impl, int threads, double seconds, long ops, long failures, Leftovers leftovers) {
        double throughput() {
            return ops / seconds;
        }

        List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (failures > 0) {
                problems.add(impl + " own keys: " + failures + " failed calls");
            }
            if (!leftovers.clean()) {
                problems.add(impl + " own keys left " + leftovers);
            }
            return problems;
        }
    }

    /** One run of {@link #contended}; {@code failures} and {@code violations} include its warm-up round. */
    public record ContendedRow(String impl, int keys, int callers, int threads, long holdMicros, double seconds,
                               long sections, long failures, long violations, Leftovers leftovers) {
        double throughput() {
            return sections / seconds;
        }

        List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (failures > 0) {
                problems.add(impl + " contended keys: " + failures + " failed calls");
            }
            if (violations > 0) {
                problems.add(impl + " contended keys: " + violations + " exclusion violations");
            }
            if (sections != (long) keys * callers) {
                problems.add(impl + " contended keys: " + sections + " critical sections ran, expected " + (long) keys * callers);
            }
            if (!leftovers.clean()) {
                problems.add(impl + " contended keys left " + leftovers);
            }
            return problems;
        }
    }

    private final RedissonClient redisson;
    private final Resp inspector;
    private final String runId = UUID.randomUUID().toString().substring(0, 8);
    private final long settleMillis;

    /**
     * @param poolSize     Redisson connection pool size (at least the number of threads that lock at once)
     * @param settleMillis how long to wait, at most, for leftovers to drop to 0 after a run
     */
    public ManyKeysDriver(String redisUrl, int poolSize, long settleMillis) throws IOException {
        this.settleMillis = settleMillis;
        this.inspector = Resp.connect(redisUrl, 10_000);
        try {
            this.redisson = BenchRedis.newClient(redisUrl, poolSize);
        } catch (RuntimeException e) {
            inspector.close();
            throw e;
        }
    }

    /** Runs the work while holding the lock on a key; {@code false} if the wait ran out. */
    @FunctionalInterface
    interface Locker {
        boolean lock(String key, Runnable critical) throws Exception;
    }

    /**
     * {@code raw}: {@code RLock.lock()} (no wait given) or {@code tryLock(wait)}; {@code distlock}:
     * {@code exclusive(key).run(...)} with its default 5 s wait or {@code waitTime(wait)}. Watchdog lease in both.
     */
    private Locker locker(String impl, DistributedLocks locks, Duration wait) {
        if (impl.equals("raw")) {
            return (key, critical) -> {
                RLock lock = redisson.getLock(RAW_PREFIX + key);
                if (wait == null) {
                    lock.lock();
                } else if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                    return false;
                }
                try {
                    critical.run();
                } finally {
                    lock.unlock();
                }
                return true;
            };
        }
        if (impl.equals("distlock")) {
            return (key, critical) -> {
                try {
                    (wait == null ? locks.exclusive(key) : locks.exclusive(key).waitTime(wait)).run(critical);
                    return true;
                } catch (LockTimeoutException timedOut) {
                    return false;
                }
            };
        }
        throw new IllegalArgumentException("impl must be raw or distlock, was " + impl);
    }

    private DistributedLocks newLocks() {
        return RedisLocks.builder(redisson).keyPrefix("bench-distlock").build();
    }

    /** Keys of one run: unique per driver, implementation and part, so the leftover checks see only them. */
    private String tag(String impl, String part) {
        return "bench-keys-" + runId + "-" + impl + "-" + part;
    }

    /**
     * {@code threads} threads, thread {@code t} locking key {@code t} again and again: first for
     * {@code warmupMillis} (not counted), then for {@code millis}.
     */
    public OwnKeysRow ownKeys(String impl, int threads, long warmupMillis, long millis) throws Exception {
        String tag = tag(impl, "own");
        DistributedLocks locks = newLocks();
        Locker locker = locker(impl, locks, null);
        CallFailures failures = new CallFailures(impl + " own keys");
        if (warmupMillis > 0) {
            ManyKeysThreads.spin(locker, tag, threads, warmupMillis, failures);
        }
        long ops = ManyKeysThreads.spin(locker, tag, threads, millis, failures);
        Leftovers leftovers = leftovers(tag, locks);
        return new OwnKeysRow(impl, threads, millis / 1000.0, ops, failures.count(), leftovers);
    }

    /**
     * {@code keys} keys × {@code callers} callers, submitted together to a pool of {@code threads};
     * each holds its lock for {@code holdMicros}. With {@code warmupKeys > 0}, an uncounted round on
     * that many other keys runs first (its failures and violations are counted).
     */
    public ContendedRow contended(String impl, int keys, int callers, int threads, long holdMicros, Duration wait,
                                  int warmupKeys) throws Exception {
        String tag = tag(impl, "contended");
        DistributedLocks locks = newLocks();
        Locker locker = locker(impl, locks, wait);
        CallFailures failures = new CallFailures(impl + " contended keys");
        LongAdder violations = new LongAdder();
        AtomicInteger threadNumber = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, work -> {
            Thread thread = new Thread(work, "contended-" + threadNumber.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        long sections;
        long nanos;
        try {
            if (warmupKeys > 0) {
                ManyKeysThreads.round(pool, locker, tag + "-warmup", warmupKeys, callers, holdMicros, wait, failures, violations);
            }
            long start = System.nanoTime();
            sections = ManyKeysThreads.round(pool, locker, tag, keys, callers, holdMicros, wait, failures, violations);
            nanos = System.nanoTime() - start;
        } finally {
            pool.shutdown();
        }
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("contended pool did not stop");
        }
        Leftovers leftovers = leftovers(tag, locks);
        return new ContendedRow(impl, keys, callers, threads, holdMicros, nanos / 1e9, sections, failures.count(),
                violations.sum(), leftovers);
    }

    /**
     * Polls Redis and the engine until nothing of the run is left or the settle time is over:
     * lock keys (by {@code SCAN}), channels with a subscriber ({@code PUBSUB CHANNELS}), local queues.
     */
    private Leftovers leftovers(String tag, DistributedLocks locks) throws IOException, InterruptedException {
        String pattern = "*" + tag + "*";
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(settleMillis);
        while (true) {
            long lockKeys = inspector.keys(pattern).stream().filter(key -> !key.startsWith(UNLOCK_LATCH_PREFIX)).count();
            long channels = inspector.channels(pattern).size();
            int localQueues = ((EngineLocks) locks).executor().localQueueCount();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            Leftovers leftovers = new Leftovers(lockKeys, channels, localQueues, waited);
            if (leftovers.clean() || System.nanoTime() - deadline > 0) {
                return leftovers;
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            redisson.shutdown();
        } finally {
            inspector.close();
        }
    }

}
