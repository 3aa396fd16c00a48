package dev.distlock.bench;

import dev.distlock.DistributedLocks;
import dev.distlock.memory.InMemoryLocks;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The engine's own cost per uncontended call, with no network under it: distlock's in-memory
 * store (the one applications test with), one thread, one key. What a Redis round trip hides in
 * {@link LockBenchmark} shows here: owners, holds, claims, the local queue, the lease watch.
 * {@code nested} takes the key again inside (a reentry), as a locked method calling another does.
 */
@State(Scope.Benchmark)
public class EnginePathBenchmark {

    private DistributedLocks locks;

    @Setup(Level.Trial)
    public void setUp() {
        System.setProperty(InMemoryLocks.ALLOWED, "true");
        locks = InMemoryLocks.builder().keyPrefix("bench-engine").build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        locks.close();
    }

    @Benchmark
    public void exclusive(Blackhole hole) {
        locks.exclusive("k").run(() -> hole.consume(1));
    }

    @Benchmark
    public void nested(Blackhole hole) {
        locks.exclusive("k").run(() -> locks.exclusive("k").run(() -> hole.consume(1)));
    }
}
