package dev.distlock.internal.cdi;

import dev.distlock.testing.IdTestDatabase;

import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Two deployments of one application, as two nodes would run it, sharing a Redis and a database:
 * the same generator name never gives both the same ids.
 */
class IdTwoDeploymentsTest {

    @Dependent
    public static class Ids {
        @Inject @GeneratedId("order") IdGenerator orders;
        @Inject @GeneratedId(value = "invoice", strategy = IdStrategy.SEGMENT) IdGenerator invoices;
    }

    private final Map<String, String> config = Map.of(
            "distlock.key-prefix", TestRedis.uniquePrefix("id-two-nodes"),
            IdTestDatabase.URL_KEY, IdTestDatabase.uniqueUrl("id-two-nodes"));

    @Test
    void twoNodesLeaseDifferentWorkerIds() {
        try (DistlockWeld first = DistlockWeld.start(config, TestRedisClient.class, IdTestDatabase.class, Ids.class);
             DistlockWeld second = DistlockWeld.start(config, TestRedisClient.class, IdTestDatabase.class, Ids.class)) {
            IdGenerator one = first.bean(Ids.class).orders;
            IdGenerator two = second.bean(Ids.class).orders;

            long a = one.nextId();
            long b = two.nextId();
            assertNotEquals(((SnowflakeGenerator) one).workerId(), ((SnowflakeGenerator) two).workerId());
            assertNotEquals(one.decode(a).orElseThrow().worker(), two.decode(b).orElseThrow().worker());
        }
    }

    @Test
    void twoNodesLeaseDisjointSegments() {
        try (DistlockWeld first = DistlockWeld.start(config, TestRedisClient.class, IdTestDatabase.class, Ids.class);
             DistlockWeld second = DistlockWeld.start(config, TestRedisClient.class, IdTestDatabase.class, Ids.class)) {
            assertEquals(1, first.bean(Ids.class).invoices.nextId());
            assertEquals(1_001, second.bean(Ids.class).invoices.nextId(), "the second node's range starts after the first's");
            assertEquals(2, first.bean(Ids.class).invoices.nextId());
        }
    }
}
