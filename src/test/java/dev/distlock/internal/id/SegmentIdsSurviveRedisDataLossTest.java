package dev.distlock.internal.id;

import dev.distlock.testing.IdRuns;

import dev.distlock.testing.TestDatabases.Database;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.Arrays;
import javax.sql.DataSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Redis losing all its data (FLUSHALL, as after a failover to an empty replica) changes nothing
 * for segment ids: their high-water mark lives in the database. A Redis counter would repeat here.
 */
@Timeout(60)
class SegmentIdsSurviveRedisDataLossTest {

    private static final SegmentIdGenerator.Settings SETTINGS =
            new SegmentIdGenerator.Settings(100, 100, 10_000, Duration.ofMinutes(1), Duration.ofSeconds(10));

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @Test
    void idsNeverRepeatAfterRedisIsFlushedMidRun() throws Exception {
        DataSource h2 = Database.H2.dataSource();
        String table = tables.newSegmentTable(h2);
        try (FlushableRedis redis = FlushableRedis.start()) {
            long[] beforeFlush;
            long[] afterFlush;
            long[] afterRestart;
            try (SegmentIdGenerator generator = new SegmentIdGenerator("flushed", new JdbcSegmentStore(h2, table), SETTINGS)) {
                beforeFlush = issue(generator, 5_050);
                redis.client.getBucket("app:marker", StringCodec.INSTANCE).set("written before the flush");
                redis.client.getKeys().flushall();
                assertFalse(redis.client.getBucket("app:marker", StringCodec.INSTANCE).isExists(), "Redis lost its data");
                afterFlush = issue(generator, 5_050);
            }
            try (SegmentIdGenerator restarted = new SegmentIdGenerator("flushed", new JdbcSegmentStore(h2, table), SETTINGS)) {
                afterRestart = issue(restarted, 5_050);
            }

            long[] all = IdRuns.concat(beforeFlush, afterFlush, afterRestart);
            IdRuns.assertStrictlyIncreasing(all);
            assertEquals(0, IdRuns.duplicates(all));
        }
    }

    private static long[] issue(SegmentIdGenerator generator, int count) {
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = generator.nextId();
        }
        return ids;
    }

    /**
     * The test Redis, or a server of the test's own when the test Redis comes from the environment
     * and may be shared with other runs that a FLUSHALL would disturb.
     */
    private record FlushableRedis(RedissonClient client, RedisProcess ownServer) implements AutoCloseable {

        static FlushableRedis start() {
            if (!TestRedis.origin().startsWith("environment")) {
                return new FlushableRedis(TestRedis.newClient(), null);
            }
            int port = Ports.free();
            RedisProcess server = RedisProcess.start(port);
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
            return new FlushableRedis(Redisson.create(config), server);
        }

        @Override
        public void close() throws Exception {
            client.shutdown();
            if (ownServer != null) {
                ownServer.close();
            }
        }
    }
}
