package dev.distlock.internal.cdi;

import dev.distlock.testing.IdTestDatabase;

import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.id.SnowflakeId;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code @Inject @GeneratedId} gives, against a real Redis and a real H2. The beans are
 * dependent so that the test reads their fields directly rather than through a client proxy.
 */
class GeneratedIdInjectionTest {

    @Dependent
    public static class Orders {
        @Inject @GeneratedId("order") IdGenerator ids;
        @Inject @GeneratedId("order") IdGenerator sameIds;
    }

    @Dependent
    public static class Invoices {
        @Inject @GeneratedId(value = "invoice", strategy = IdStrategy.SEGMENT) IdGenerator ids;
    }

    @Dependent
    public static class PlainInvoices {
        @Inject @GeneratedId("invoice") IdGenerator ids;
    }

    @Dependent
    public static class Receipts {
        @Inject @GeneratedId(value = "receipt", strategy = IdStrategy.SNOWFLAKE) IdGenerator ids;
    }

    @Dependent
    public static class Request {
        @Inject @GeneratedId("request") long id;
        @Inject @GeneratedId("request") Long boxedId;
    }

    private final String prefix = TestRedis.uniquePrefix("id-inject");
    private final String database = IdTestDatabase.uniqueUrl("id-inject");

    private DistlockWeld start(Map<String, String> extra, Class<?>... beans) {
        return IdTestDatabase.startWeld(prefix, database, extra, beans);
    }

    @Test
    void anUnconfiguredGeneratorIsSnowflakeWithAWorkerIdLeasedInRedis() {
        try (DistlockWeld weld = start(Map.of(), Orders.class)) {
            IdGenerator ids = weld.bean(Orders.class).ids;
            long first = ids.nextId();
            long second = ids.nextId();

            assertEquals(IdStrategy.SNOWFLAKE, ids.strategy());
            assertEquals("order", ids.name());
            assertTrue(first > 0 && second > first, first + " then " + second);
            long worker = ((SnowflakeGenerator) ids).workerId();
            String leaseKey = prefix + ":id:{order}:worker:" + worker;
            assertEquals(1, weld.bean(RedissonClient.class).getKeys().countExists(leaseKey), leaseKey + " should hold the lease");
        }
    }

    @Test
    void injectionPointsOfOneNameShareOneGenerator() {
        try (DistlockWeld weld = start(Map.of(), Orders.class)) {
            Orders orders = weld.bean(Orders.class);
            assertSame(orders.ids, orders.sameIds);
            assertSame(orders.ids, weld.bean(IdGenerators.class).generator("order"));
        }
    }

    @Test
    void theAnnotatedSegmentStrategyGivesIdsFromTheTable() throws Exception {
        try (DistlockWeld weld = start(Map.of(), Invoices.class)) {
            IdGenerator ids = weld.bean(Invoices.class).ids;

            assertEquals(IdStrategy.SEGMENT, ids.strategy());
            assertEquals(1, ids.nextId());
            assertEquals(2, ids.nextId());
            assertEquals(1_000, IdTestDatabase.maxId(database, "invoice").orElseThrow(), "the first range, 1..1000, is leased");
        }
    }

    @Test
    void anInjectionPointWithoutAStrategyJoinsTheOneThatNamesIt() {
        try (DistlockWeld weld = start(Map.of(), PlainInvoices.class, Invoices.class)) {
            IdGenerator plain = weld.bean(PlainInvoices.class).ids;
            assertEquals(IdStrategy.SEGMENT, plain.strategy());
            assertSame(weld.bean(Invoices.class).ids, plain);
        }
    }

    @Test
    void configOfTheNameOverridesTheAnnotatedStrategy() {
        try (DistlockWeld weld = start(Map.of("distlock.id.invoice.strategy", "snowflake",
                "distlock.id.receipt.strategy", "SEGMENT"), Invoices.class, Receipts.class)) {
            assertEquals(IdStrategy.SNOWFLAKE, weld.bean(Invoices.class).ids.strategy());
            assertEquals(IdStrategy.SEGMENT, weld.bean(Receipts.class).ids.strategy());
        }
    }

    @Test
    void theGlobalStrategyAppliesWhenNeitherConfigOfTheNameNorTheAnnotationSays() {
        try (DistlockWeld weld = start(Map.of("distlock.id.strategy", "SEGMENT"), Orders.class)) {
            IdGenerator ids = weld.bean(Orders.class).ids;
            assertEquals(IdStrategy.SEGMENT, ids.strategy());
            assertEquals(1, ids.nextId());
        }
    }

    @Test
    void anAnnotatedStrategyOutranksTheGlobalOne() {
        try (DistlockWeld weld = start(Map.of("distlock.id.strategy", "SEGMENT"), Receipts.class)) {
            assertEquals(IdStrategy.SNOWFLAKE, weld.bean(Receipts.class).ids.strategy());
        }
    }

    @Test
    void anInjectedLongIsAFreshIdPerBeanInstance() {
        try (DistlockWeld weld = start(Map.of(), Request.class)) {
            Request one = weld.bean(Request.class);
            Request two = weld.bean(Request.class);

            assertTrue(one.id > 0);
            assertNotEquals(one.id, two.id);
            assertNotEquals(one.id, (long) one.boxedId, "a Long is an id of its own too");
            assertNotEquals(one.boxedId, two.boxedId);
        }
    }

    @Test
    void aSnowflakeIdDecodesToAboutNowAndTheLeasedWorkerId() {
        try (DistlockWeld weld = start(Map.of(), Orders.class)) {
            IdGenerator ids = weld.bean(Orders.class).ids;
            Instant before = Instant.now();
            long id = ids.nextId();
            Instant after = Instant.now();

            SnowflakeId parts = ids.decode(id).orElseThrow();
            // Generous: the id's millisecond is truncated, and clocks are read at different moments.
            assertTrue(!parts.time().isBefore(before.minus(Duration.ofSeconds(1))) && !parts.time().isAfter(after.plusSeconds(1)),
                    parts.time() + " should lie between " + before + " and " + after);
            assertEquals(((SnowflakeGenerator) ids).workerId(), parts.worker());
        }
    }

    @Test
    void aFixedWorkerIdIsUsedAndNothingIsLeased() {
        try (DistlockWeld weld = start(Map.of("distlock.id.order.worker-id", "7"), Orders.class)) {
            IdGenerator ids = weld.bean(Orders.class).ids;

            assertEquals(7, ids.decode(ids.nextId()).orElseThrow().worker());
            RedissonClient redis = weld.bean(RedissonClient.class);
            assertEquals(List.of(prefix + ":id:{order}:last"), redis.getKeys().getKeysStreamByPattern(prefix + ":*").toList(),
                    "a fixed worker id needs no lease, only its clock floor");
            assertTrue(redis.getMap(prefix + ":id:{order}:last", StringCodec.INSTANCE).containsKey("7"), "the floor of worker id 7");
        }
    }

    @Test
    void aFixedWorkerIdWithoutAClockFloorTouchesNoRedisKey() {
        try (DistlockWeld weld = start(Map.of("distlock.id.order.worker-id", "7", "distlock.id.order.clock-floor", "none"), Orders.class)) {
            IdGenerator ids = weld.bean(Orders.class).ids;

            assertEquals(7, ids.decode(ids.nextId()).orElseThrow().worker());
            RedissonClient redis = weld.bean(RedissonClient.class);
            assertEquals(0, redis.getKeys().getKeysStreamByPattern(prefix + ":*").count(), "clock-floor=none keeps nothing in Redis");
        }
    }

    @Test
    void segmentIdsCarryNoTime() {
        try (DistlockWeld weld = start(Map.of(), Invoices.class)) {
            IdGenerator ids = weld.bean(Invoices.class).ids;
            assertTrue(ids.decode(ids.nextId()).isEmpty());
        }
    }
}
