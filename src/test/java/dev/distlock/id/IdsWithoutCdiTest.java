package dev.distlock.id;

import dev.distlock.redis.RedisIds;
import dev.distlock.spi.id.IdStore;
import dev.distlock.spi.id.WorkerLeases;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Ids}: the generators without CDI, against real Redis and a real database. */
@Timeout(60)
class IdsWithoutCdiTest {

    @Test
    void aSnowflakeWithAFixedWorkerIdIssuesIncreasingIdsUnderIt() {
        try (Ids.Generator ids = Ids.snowflake("fixed").workerId(7).build()) {
            long first = ids.nextId();
            long second = ids.nextId();
            assertTrue(second > first);
            assertEquals(7, ids.decode(first).orElseThrow().worker());
            assertEquals(IdStrategy.SNOWFLAKE, ids.strategy());
            assertEquals("fixed", ids.name());
        }
    }

    @Test
    void twoSnowflakesWithLeasedWorkersNeverShareOneAndGiveItBackOnClose() {
        RedissonClient redis = TestRedis.sharedClient();
        String prefix = TestRedis.uniquePrefix("ids");
        long worker;
        try (Ids.Generator one = Ids.snowflake("orders").leasedWorker(RedisIds.store(redis)).keyPrefix(prefix).build();
             Ids.Generator two = Ids.snowflake("orders").leasedWorker(RedisIds.store(redis)).keyPrefix(prefix).build()) {
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < 50_000; i++) {
                assertTrue(seen.add(one.nextId()));
                assertTrue(seen.add(two.nextId()));
            }
            worker = one.decode(one.nextId()).orElseThrow().worker();
            assertNotEquals(worker, two.decode(two.nextId()).orElseThrow().worker());
            assertEquals(1, redis.getKeys().countExists(prefix + ":id:{orders}:worker:" + worker));
        }
        assertEquals(0, redis.getKeys().countExists(prefix + ":id:{orders}:worker:" + worker), "given back on close");
    }

    @Test
    void twoSegmentGeneratorsOnOneTableNeverRepeatAnId() {
        DataSource database = TestDatabases.dataSourceFor("jdbc:h2:mem:ids-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        Set<Long> seen = new HashSet<>();
        try (Ids.Generator one = Ids.segment("invoice", database).steps(100, 100, 10_000).build();
             Ids.Generator two = Ids.segment("invoice", database).steps(100, 100, 10_000).build()) {
            for (int i = 0; i < 20_000; i++) {
                assertTrue(seen.add(one.nextId()));
                assertTrue(seen.add(two.nextId()));
            }
            assertEquals(IdStrategy.SEGMENT, one.strategy());
        }
        assertEquals(40_000, seen.size());
    }

    @Test
    void dailySerialsCountedInRedisStartAtOneAndAreWrittenInTheirFormat() {
        RedissonClient redis = TestRedis.sharedClient();
        String prefix = TestRedis.uniquePrefix("serials");
        DataSource database = TestDatabases.dataSourceFor("jdbc:h2:mem:serials-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Ids.Serials numbers = Ids.dailySerial("order-number", RedisIds.store(redis), database).keyPrefix(prefix)
                .format("ON-{date:yyyyMMdd}-{serial:4}").build()) {
            DailySerial first = numbers.next();
            DailySerial second = numbers.next();
            assertEquals(1, first.serial());
            assertEquals("ON-" + first.day().format(DateTimeFormatter.BASIC_ISO_DATE) + "-0001", first.text());
            assertTrue(second.serial() == 2 || second.day().isAfter(first.day()), first + " then " + second);
            assertEquals("order-number", numbers.name());
            assertEquals(1, redis.getKeys().countExists(prefix + ":serial:order-number"));
        }
    }

    @Test
    void dailySerialsNeedAStoreThatCountsThem() {
        IdStore elsewhere = new IdStore() {
            @Override
            public WorkerLeases leasedWorkers(String keyPrefix, long leaseMillis) {
                throw new AssertionError();
            }

            @Override
            public WorkerLeases fixedWorker(String keyPrefix, long workerId) {
                throw new AssertionError();
            }

            @Override
            public String toString() {
                return "elsewhere";
            }
        };
        UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                () -> Ids.dailySerial("n", elsewhere, TestDatabases.dataSourceFor("jdbc:h2:mem:x")).build());
        assertEquals("daily serials are counted in Redis, not in elsewhere", refused.getMessage());
    }

    @Test
    void badInputIsRefusedNamingWhatIsWrong() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Ids.snowflake(" ")).getMessage().contains("needs a name"));
        assertTrue(assertThrows(IllegalStateException.class, () -> Ids.snowflake("none").build()).getMessage()
                .contains("choose workerId(n) or leasedWorker(store)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Ids.snowflake("big").workerId(1024).build()).getMessage()
                .contains("worker id 1024 does not fit"));
        assertThrows(IllegalArgumentException.class,
                () -> Ids.snowflake("bits").layout(Instant.parse("2020-01-01T00:00:00Z"), 40, 10, 10));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Ids.segment("steps", TestDatabases.dataSourceFor("jdbc:h2:mem:x")).steps(10, 100, 1_000)).getMessage()
                .contains("min-step"));
        assertThrows(IllegalArgumentException.class,
                () -> Ids.segment("table", TestDatabases.dataSourceFor("jdbc:h2:mem:x")).table("no; way").build());
        assertThrows(IllegalArgumentException.class,
                () -> Ids.snowflake("lease").leasedWorker(RedisIds.store(TestRedis.sharedClient())).workerLease(Duration.ofMillis(100)).build());
    }
}
