package dev.distlock.idsoak;

import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.redis.RedisWorkerLeases;
import dev.distlock.internal.id.SegmentIdGenerator;
import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.id.IdGenerator;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Ids per second in one JVM, on 1 thread and on 8, per strategy. Figures only: timing on a shared
 * machine is no basis for an assertion. Each thread still checks that its ids increase.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SingleJvmThroughputIT {

    private static final Duration WARM_UP = Duration.ofSeconds(1);
    private static final Duration MEASURED = Duration.ofSeconds(2);

    @Test
    void snowflakeThroughput() throws Exception {
        String prefix = TestRedis.uniquePrefix("throughput");
        RedissonClient redis = TestRedis.newClient();
        try (SnowflakeGenerator generator = SnowflakeGenerator.leased("throughput", SnowflakeLayout.DEFAULT, Clock.systemUTC(), 10,
                RedisWorkerLeases.factory(() -> redis, prefix, 10_000))) {
            measure(generator);
        } finally {
            redis.getKeys().deleteByPattern(prefix + ":*");
            redis.shutdown();
        }
    }

    @Test
    void segmentThroughput() throws Exception {
        DataSource h2 = TestDatabases.Database.H2.dataSource();
        String table = TestDatabases.uniqueTable("throughput");
        JdbcSegmentStore store = new JdbcSegmentStore(h2, table);
        store.createTableIfAbsent();
        try (SegmentIdGenerator generator = new SegmentIdGenerator("throughput", store, SegmentIdGenerator.Settings.defaults())) {
            measure(generator);
        } finally {
            TestDatabases.dropTable(h2, table);
        }
    }

    private static void measure(IdGenerator generator) throws Exception {
        run(generator, 1, WARM_UP);
        double oneThread = run(generator, 1, MEASURED);
        double eightThreads = run(generator, 8, MEASURED);
        System.out.printf("%s single JVM: %,.0f ids/s on 1 thread, %,.0f ids/s on 8 threads (%d ms each)%n",
                generator.strategy(), oneThread, eightThreads, MEASURED.toMillis());
    }

    /** Issues ids on {@code threads} threads for {@code duration}, each checking its ids increase; returns ids per second. */
    private static double run(IdGenerator generator, int threads, Duration duration) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        AtomicBoolean running = new AtomicBoolean(true);
        LongAdder issued = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                try {
                    start.await();
                    long previous = 0;
                    long count = 0;
                    while (running.get()) {
                        for (int i = 0; i < 1_000; i++) {
                            long id = generator.nextId();
                            if (id <= previous) {
                                throw new AssertionError("id " + id + " is not above " + previous);
                            }
                            previous = id;
                        }
                        count += 1_000;
                    }
                    issued.add(count);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            workers[t].start();
        }
        start.await();
        long started = System.nanoTime();
        Thread.sleep(duration.toMillis());
        running.set(false);
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsed = System.nanoTime() - started;
        if (failure.get() != null) {
            throw new AssertionError("a thread failed", failure.get());
        }
        return issued.sum() * 1e9 / elapsed;
    }
}
