package dev.distlock.internal.cdi;

import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RedissonClient;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Shutting the container down returns leased worker ids at once, whichever client talks to Redis,
 * so a redeployed node does not wait out a lease it held itself. The lease is long, so a key that
 * is gone was returned, not expired.
 */
class IdUndeployReturnsWorkerIdsTest {

    @Dependent
    public static class Orders {
        @Inject @GeneratedId("order") IdGenerator orders;
        @Inject @GeneratedId("invoice") IdGenerator invoices;
    }

    /*
     * The application's own client, four times under different names. Weld destroys
     * application-scoped beans in the hash order of their ids, so the names vary whether the
     * client is shut down before or after distlock's generators: the worker ids must be returned
     * either way.
     */
    public static class ClientA {
        @Produces @ApplicationScoped RedissonClient client() { return TestRedis.newClient(); }
        void close(@Disposes RedissonClient client) { client.shutdown(); }
    }

    public static class ClientB {
        @Produces @ApplicationScoped RedissonClient client() { return TestRedis.newClient(); }
        void close(@Disposes RedissonClient client) { client.shutdown(); }
    }

    public static class ClientC {
        @Produces @ApplicationScoped RedissonClient client() { return TestRedis.newClient(); }
        void close(@Disposes RedissonClient client) { client.shutdown(); }
    }

    public static class ClientD {
        @Produces @ApplicationScoped RedissonClient client() { return TestRedis.newClient(); }
        void close(@Disposes RedissonClient client) { client.shutdown(); }
    }

    private static final RedissonClient observer = TestRedis.sharedClient();
    private final String prefix = TestRedis.uniquePrefix("id-undeploy");

    @Test
    void undeployReturnsWorkerIdsLeasedThroughTheApplicationsClient() {
        DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix, "distlock.id.worker-lease", "PT5M"),
                TestRedisClient.class, Orders.class);
        assertLeasesReturnedOnClose(weld);
    }

    @ParameterizedTest
    @ValueSource(classes = {ClientA.class, ClientB.class, ClientC.class, ClientD.class})
    void undeployReturnsWorkerIdsWhicheverBeanTheContainerDestroysFirst(Class<?> applicationClient) {
        DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix, "distlock.id.worker-lease", "PT5M"),
                applicationClient, Orders.class);
        assertLeasesReturnedOnClose(weld);
    }

    @Test
    void undeployReturnsWorkerIdsLeasedThroughTheClientDistlockBuilt() {
        DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix, "distlock.id.worker-lease", "PT5M",
                "distlock.redis.address", TestRedis.url()), Orders.class);
        assertLeasesReturnedOnClose(weld);
    }

    private void assertLeasesReturnedOnClose(DistlockWeld weld) {
        String orderKey;
        String invoiceKey;
        try (weld) {
            Orders bean = weld.bean(Orders.class);
            bean.orders.nextId();
            bean.invoices.nextId();
            orderKey = prefix + ":id:{order}:worker:" + ((SnowflakeGenerator) bean.orders).workerId();
            invoiceKey = prefix + ":id:{invoice}:worker:" + ((SnowflakeGenerator) bean.invoices).workerId();
            assertEquals(2, observer.getKeys().countExists(orderKey, invoiceKey), "both worker ids are leased while deployed");
        }
        assertEquals(0, observer.getKeys().countExists(orderKey), orderKey + " should be returned on undeploy");
        assertEquals(0, observer.getKeys().countExists(invoiceKey), invoiceKey + " should be returned on undeploy");
    }
}
