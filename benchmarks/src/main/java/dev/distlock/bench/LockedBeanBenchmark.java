package dev.distlock.bench;

import dev.distlock.LockMode;
import dev.distlock.internal.core.EngineLocks;

import dev.distlock.DistributedLocks;
import dev.distlock.Locked;
import dev.distlock.internal.cdi.DistlockExtension;
import dev.distlock.internal.cdi.LockEngine;
import dev.distlock.testkit.CdiContainer;
import jakarta.enterprise.context.ApplicationScoped;
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

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Uncontended lock + unlock through CDI, one thread: a {@code @Locked("bench:{0}")} method of an
 * {@code @ApplicationScoped} bean in Weld SE, against raw {@link RLock#lock()}/{@code unlock()} and
 * against the programmatic {@code exclusive(k).run(...)}, all with the watchdog lease and an empty
 * critical section. The difference between {@code lockedMethod} and {@code programmatic} is what
 * the interceptor adds (proxy, interceptor chain, key rendering).
 *
 * <p>distlock is configured the way an application configures it, through MicroProfile Config
 * ({@code distlock.redis.address}, {@code distlock.key-prefix}), and builds its own Redisson client.
 * Raw Redisson uses that same client ({@code LockEngine.redisClient()}) and the programmatic calls
 * the same engine (the injected {@link DistributedLocks}), so the three differ only in the layer on top.
 * {@code keys=same}: every call locks the same key; {@code keys=distinct}: a new key per call.
 */
@State(Scope.Benchmark)
public class LockedBeanBenchmark {

    static final String KEY_PREFIX = "bench-distlock";

    @Param({"same", "distinct"})
    public String keys;

    private CdiContainer container;
    private LockedService service;
    private RedissonClient redisson;
    private DistributedLocks locks;
    private String idPrefix;
    private final AtomicLong sequence = new AtomicLong();

    /** The bean under test; the interceptor renders {@code {0}} from the first argument. */
    @ApplicationScoped
    public static class LockedService {

        @Locked("bench:{0}")
        public void locked(String id, Blackhole hole) {
            hole.consume(1);
        }

        /** Whether {@code lock} is held in Redis while this runs: proof that the interceptor is active. */
        @Locked("bench:{0}")
        public boolean heldInside(String id, RLock lock) {
            return lock.isLocked();
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        // Weld logs through JBoss Logging; send it to slf4j-nop like the rest of the benchmarks.
        if (System.getProperty("org.jboss.logging.provider") == null) {
            System.setProperty("org.jboss.logging.provider", "slf4j");
        }
        // Discovery is off (the archive is the one bean class), so Weld does not load the extension
        // that the library's META-INF/services registers in a real deployment: add it here.
        container = CdiContainer.start(Map.of(
                        "distlock.redis.address", BenchRedis.url(),
                        "distlock.key-prefix", KEY_PREFIX),
                new DistlockExtension(), LockedService.class);
        service = container.bean(LockedService.class);
        redisson = container.bean(LockEngine.class).redisClient().get();
        locks = container.bean(DistributedLocks.class);
        idPrefix = "bench-" + UUID.randomUUID().toString().substring(0, 8) + "-";

        String probeId = idPrefix + "probe";
        RLock probe = redisson.getLock(((EngineLocks) locks).executor().lockName(LockMode.EXCLUSIVE, "bench:" + probeId));
        if (!service.heldInside(probeId, probe) || probe.isLocked()) {
            throw new IllegalStateException("@Locked is not intercepted (or not released): "
                    + probe.getName() + " was not held inside the method, or still is after it");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        container.close(); // also shuts down the Redisson client distlock built
    }

    private String id() {
        return "distinct".equals(keys) ? idPrefix + sequence.incrementAndGet() : idPrefix + "k";
    }

    @Benchmark
    public void rawRLock(Blackhole hole) {
        RLock lock = redisson.getLock("bench-raw:bench:" + id());
        lock.lock();
        try {
            hole.consume(1);
        } finally {
            lock.unlock();
        }
    }

    @Benchmark
    public void lockedMethod(Blackhole hole) {
        service.locked(id(), hole);
    }

    @Benchmark
    public void programmatic(Blackhole hole) {
        locks.exclusive("bench:" + id()).run(() -> hole.consume(1));
    }
}
