package dev.distlock.bench;

import dev.distlock.core.id.JdbcSegmentStore;
import dev.distlock.core.id.SegmentIdGenerator;
import dev.distlock.core.id.SnowflakeGenerator;
import dev.distlock.core.id.SnowflakeLayout;
import org.h2.jdbcx.JdbcDataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.redisson.api.RIdGenerator;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.util.UUID;

/**
 * Ids per second. Snowflake: distlock {@code SnowflakeGenerator.fixed(...)} against a naive
 * {@code synchronized} Snowflake, 1 and 8 threads; the layout caps both at 4,096 ids/ms.
 * Segment: distlock {@code SegmentIdGenerator} over an H2 in-memory {@code JdbcSegmentStore}
 * (default settings: step 1,000 growing to 1,000,000) against Redisson {@code RIdGenerator}
 * (allocation size 5,000), 1 thread.
 */
public class IdBenchmark {

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

    @State(Scope.Benchmark)
    public static class Segments {
        SegmentIdGenerator distlock;
        RedissonClient redisson;
        RIdGenerator redissonIds;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
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
    @Threads(1)
    public long segmentRedissonIdGenerator_1thread(Segments s) {
        return s.redissonIds.nextId();
    }
}
