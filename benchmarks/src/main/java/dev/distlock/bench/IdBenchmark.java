package dev.distlock.bench;

import dev.distlock.redis.RedisDayCounter;
import dev.distlock.redis.RedisWorkerLeases;
import dev.distlock.internal.id.DailySerialGenerator;
import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.internal.id.SegmentIdGenerator;
import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.spi.id.SnowflakeLayout;
import org.h2.jdbcx.JdbcDataSource;
import com.sun.management.HotSpotDiagnosticMXBean;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RIdGenerator;
import org.redisson.api.RedissonClient;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ids per second. Snowflake: distlock {@code SnowflakeGenerator.fixed(...)} against a naive
 * {@code synchronized} Snowflake, 1 and 8 threads; the layout caps both at 4,096 ids/ms.
 * Segment: distlock {@code SegmentIdGenerator} over an H2 in-memory {@code JdbcSegmentStore}
 * (default settings: step 1,000 growing to 1,000,000) against Redisson {@code RIdGenerator}
 * (allocation size 5,000), 1 and 8 threads sharing one generator. Daily serials: see {@link Serials}.
 */
public class IdBenchmark {

    /** Thread stack below which the 8-thread Redisson benchmark refuses to run (see {@link #segmentRedissonIdGenerator_8threads}). */
    static final long MIN_STACK_BYTES = 8L << 20;

    /** This JVM's default thread stack size (-Xss / -XX:ThreadStackSize). */
    static long threadStackBytes() {
        HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        return Long.parseLong(hotSpot.getVMOption("ThreadStackSize").getValue()) << 10;
    }

    @State(Scope.Benchmark)
    public static class Snowflakes {
        SnowflakeGenerator distlock;
        NaiveSnowflake naive;

        @Setup(Level.Trial)
        public void setUp() {
            distlock = SnowflakeGenerator.fixed("bench", SnowflakeLayout.DEFAULT, Clock.systemUTC(), 10, 1);
            naive = new NaiveSnowflake(1);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            distlock.close();
        }
    }

    /**
     * Leased worker ids in Redis ({@code RedisWorkerLeases}, 30 s lease): the hot path reads the lease and the floor
     * Redis has recorded for it, and touches Redis only in the heartbeat. {@code capped}: the default layout,
     * capped at 4,096 ids/ms like the fixed one; {@code wide}: 22 sequence bits (4 M ids/ms, one worker id),
     * a ceiling no CAS loop reaches, so its figure is the hot path's own cost.
     */
    @State(Scope.Benchmark)
    public static class LeasedSnowflakes {
        static final SnowflakeLayout WIDE = new SnowflakeLayout(SnowflakeLayout.DEFAULT_EPOCH, 41, 0, 22);
        RedissonClient redisson;
        SnowflakeGenerator capped;
        SnowflakeGenerator wide;

        @Setup(Level.Trial)
        public void setUp() {
            redisson = BenchRedis.newClient();
            RedissonClient client = redisson;
            String prefix = "bench-leased-" + UUID.randomUUID();
            capped = SnowflakeGenerator.leased("capped", SnowflakeLayout.DEFAULT, Clock.systemUTC(), 10,
                    RedisWorkerLeases.factory(() -> client, prefix, 30_000));
            wide = SnowflakeGenerator.leased("wide", WIDE, Clock.systemUTC(), 10,
                    RedisWorkerLeases.factory(() -> client, prefix, 30_000));
            capped.nextId();
            wide.nextId();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            capped.close();
            wide.close();
            redisson.shutdown();
        }
    }

    @State(Scope.Benchmark)
    public static class Segments {
        SegmentIdGenerator distlock;
        RedissonClient redisson;
        RIdGenerator redissonIds;
        final AtomicLong counter = new AtomicLong();

        @Setup(Level.Trial)
        public void setUp(BenchmarkParams params) throws Exception {
            if (params.getBenchmark().contains("Redisson") && params.getThreads() > 1 && threadStackBytes() < MIN_STACK_BYTES) {
                throw new IllegalStateException("Redisson's RIdGenerator on " + params.getThreads() + " threads needs thread "
                        + "stacks of at least " + (MIN_STACK_BYTES >> 20) + " MB (run this JVM with -Xss16m): it serves queued "
                        + "requests by recursion and on a default stack overflows, then hangs");
            }
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:bench-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
            JdbcSegmentStore store = new JdbcSegmentStore(dataSource, JdbcSegmentStore.DEFAULT_TABLE);
            store.createTableIfAbsent();
            distlock = new SegmentIdGenerator("bench", store, SegmentIdGenerator.Settings.defaults());
            redisson = BenchRedis.newClient();
            redissonIds = redisson.getIdGenerator("bench-ids-" + UUID.randomUUID());
            redissonIds.tryInit(1, 5_000);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            distlock.close();
            redisson.shutdown();
        }
    }

    /**
     * Daily serial numbers: distlock's {@code DailySerialGenerator} (one Redis script per number,
     * ranges of 100 leased from an H2 in-memory store) against the bare recipe it replaces, one
     * {@code INCR} of a per-day key ({@code RAtomicLong.incrementAndGet()}), which repeats numbers
     * once Redis loses its data. Both one Redis round trip per number on the same embedded Redis.
     */
    @State(Scope.Benchmark)
    public static class Serials {
        DailySerialGenerator distlock;
        RedissonClient redisson;
        RAtomicLong incr;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:bench-serial-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
            JdbcSegmentStore store = new JdbcSegmentStore(dataSource, JdbcSegmentStore.DEFAULT_TABLE);
            store.createTableIfAbsent();
            redisson = BenchRedis.newClient();
            RedissonClient client = redisson;
            String name = "bench-" + UUID.randomUUID();
            distlock = new DailySerialGenerator(name, new RedisDayCounter(name, () -> client, "bench"), store,
                    DailySerialGenerator.Settings.defaults());
            incr = redisson.getAtomicLong("bench-serial:" + UUID.randomUUID() + ":" + java.time.LocalDate.now());
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            distlock.close();
            redisson.shutdown();
        }
    }

    @Benchmark
    @Threads(1)
    public Object dailySerialDistlock_1thread(Serials s) {
        return s.distlock.next();
    }

    @Benchmark
    @Threads(8)
    public Object dailySerialDistlock_8threads(Serials s) {
        return s.distlock.next();
    }

    @Benchmark
    @Threads(1)
    public long dailySerialIncr_1thread(Serials s) {
        return s.incr.incrementAndGet();
    }

    @Benchmark
    @Threads(8)
    public long dailySerialIncr_8threads(Serials s) {
        return s.incr.incrementAndGet();
    }

    @Benchmark
    @Threads(1)
    public long snowflakeDistlock_1thread(Snowflakes s) {
        return s.distlock.nextId();
    }

    @Benchmark
    @Threads(8)
    public long snowflakeDistlock_8threads(Snowflakes s) {
        return s.distlock.nextId();
    }

    @Benchmark
    @Threads(1)
    public long snowflakeLeased_1thread(LeasedSnowflakes s) {
        return s.capped.nextId();
    }

    @Benchmark
    @Threads(8)
    public long snowflakeLeased_8threads(LeasedSnowflakes s) {
        return s.capped.nextId();
    }

    @Benchmark
    @Threads(1)
    public long snowflakeLeasedWide_1thread(LeasedSnowflakes s) {
        return s.wide.nextId();
    }

    @Benchmark
    @Threads(8)
    public long snowflakeLeasedWide_8threads(LeasedSnowflakes s) {
        return s.wide.nextId();
    }

    @Benchmark
    @Threads(1)
    public long snowflakeNaive_1thread(Snowflakes s) {
        return s.naive.nextId();
    }

    @Benchmark
    @Threads(8)
    public long snowflakeNaive_8threads(Snowflakes s) {
        return s.naive.nextId();
    }

    @Benchmark
    @Threads(1)
    public long segmentDistlockH2_1thread(Segments s) {
        return s.distlock.nextId();
    }

    @Benchmark
    @Threads(8)
    public long segmentDistlockH2_8threads(Segments s) {
        return s.distlock.nextId();
    }

    /**
     * Not a generator: one {@code AtomicLong.getAndIncrement()} per call, the least any generator
     * whose ids increase across the threads of a JVM pays per id. The segment generator's hot path
     * is this increment plus two comparisons; the row shows how close it is to the floor.
     */
    @Benchmark
    @Threads(1)
    public long segmentFloorAtomicIncrement_1thread(Segments s) {
        return s.counter.getAndIncrement();
    }

    @Benchmark
    @Threads(1)
    public long segmentRedissonIdGenerator_1thread(Segments s) {
        return s.redissonIds.nextId();
    }

    /**
     * Forked with 16 MB thread stacks: Redisson 4.7.0's {@code RIdGenerator} serves queued requests
     * by recursion, one level per id of an allocation (5,000), and under 8 contending threads that
     * overflows the default 1 MB stack; the overflow is swallowed in a future callback and every
     * later {@code nextId()} waits forever.
     */
    @Benchmark
    @Threads(8)
    @Fork(jvmArgsPrepend = "-Xss16m")
    public long segmentRedissonIdGenerator_8threads(Segments s) {
        return s.redissonIds.nextId();
    }
}
