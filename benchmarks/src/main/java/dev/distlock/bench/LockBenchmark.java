package dev.distlock.bench;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Uncontended lock + unlock, one thread: distlock {@code exclusive(k).run(...)} against raw
 * {@link RLock#lock()}/{@code unlock()}, each with the watchdog lease and with a fixed 30 s lease.
 * {@code keys=same}: every operation locks the same key; {@code keys=distinct}: a new key per operation.
 * The work inside is empty, so the score is the cost of the lock itself (&ge; 2 Redis round trips).
 */
@State(Scope.Benchmark)
public class LockBenchmark {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @Param({"same", "distinct"})
    public String keys;

    private RedissonClient redisson;
    private DistributedLocks locks;
    private String prefix;
    private final AtomicLong sequence = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() {
        redisson = BenchRedis.newClient();
        locks = RedisLocks.builder(redisson).keyPrefix("bench-distlock").build();
        prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        redisson.shutdown();
    }

    private String key() {
        return "distinct".equals(keys) ? prefix + sequence.incrementAndGet() : prefix + "k";
    }

    @Benchmark
    public void distlockWatchdog(Blackhole hole) {
        locks.exclusive(key()).run(() -> hole.consume(1));
    }

    @Benchmark
    public void distlockFixedLease(Blackhole hole) {
        locks.exclusive(key()).leaseTime(LEASE).run(() -> hole.consume(1));
    }

    @Benchmark
    public void rawWatchdog(Blackhole hole) {
        RLock lock = redisson.getLock("bench-raw:" + key());
        lock.lock();
        try {
            hole.consume(1);
        } finally {
            lock.unlock();
        }
    }

    @Benchmark
    public void rawFixedLease(Blackhole hole) {
        RLock lock = redisson.getLock("bench-raw:" + key());
        lock.lock(LEASE.toMillis(), TimeUnit.MILLISECONDS);
        try {
            hole.consume(1);
        } finally {
            lock.unlock();
        }
    }
}
