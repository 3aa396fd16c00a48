package dev.distlock.zookeeper;

import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;

import dev.distlock.internal.cdi.observability.LockStoreReadiness;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.Stock;
import dev.distlock.testkit.Ports;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code distlock.backend=zookeeper}: the same annotations, locks held as ZooKeeper nodes, Redis never
 * asked (its address points at a port nobody listens on), readiness named after the store, and every
 * bad setting failing the deployment with the key and the value.
 */
@Timeout(120)
class ZooKeeperBackendThroughBeansTest {

    private static TestingServer server;
    private static CuratorFramework probe;

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(true);
        probe = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        probe.start();
    }

    @AfterAll
    static void stop() throws Exception {
        probe.close();
        server.close();
    }

    @ApplicationScoped
    public static class Orders {
        @jakarta.inject.Inject
        @dev.distlock.id.GeneratedId("orders")
        dev.distlock.id.IdGenerator ids;

        public dev.distlock.id.IdGenerator ids() {
            return ids;
        }
    }

    private static Map<String, String> zooKeeper(String root) {
        Map<String, String> config = new HashMap<>();
        config.put("distlock.backend", "zookeeper");
        config.put("distlock.zookeeper.connect", server.getConnectString());
        config.put("distlock.zookeeper.root", root);
        config.put("distlock.redis.address", "redis://127.0.0.1:" + Ports.free()); // nobody there: must not matter
        return config;
    }

    @Test
    void lockedMethodsHoldZooKeeperNodesAndRedisIsNeverAsked() throws Exception {
        try (DistlockWeld weld = DistlockWeld.start(zooKeeper("/beans"), Stock.class)) {
            Stock stock = weld.bean(Stock.class);
            List<String> holders = stock.reserve("A", () -> probe.getChildren().forPath("/beans/distlock:lock:stock:A"));
            assertEquals(1, holders.size(), "one lock node while the method runs: " + holders);
            assertTrue(probe.getChildren().forPath("/beans/distlock:lock:stock:A").isEmpty(), "released after it");
            List<String> readers = stock.read(() -> probe.getChildren().forPath("/beans/distlock:rw:catalog"));
            assertEquals(1, readers.size());
            assertTrue(readers.get(0).contains("READ"), "a read lock node: " + readers);

            HealthCheckResponse ready = weld.container().select(LockStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
            assertEquals("distlock-zookeeper", ready.getName());
            assertEquals(HealthCheckResponse.Status.UP, ready.getStatus(), String.valueOf(ready.getData()));
        }
    }

    @Test
    void snowflakeWorkerIdsAreLeasedInTheSameZooKeeperAndRedisIsNeverAsked() throws Exception {
        try (DistlockWeld weld = DistlockWeld.start(zooKeeper("/ids"), Stock.class, Orders.class)) {
            dev.distlock.id.IdGenerator ids = weld.bean(Orders.class).ids();
            long first = ids.nextId();
            assertTrue(ids.nextId() > first);
            long worker = ids.decode(first).orElseThrow().worker();
            assertEquals(List.of(Long.toString(worker)), probe.getChildren().forPath("/ids/id/orders/worker"),
                    "the worker id is an ephemeral node of distlock's session");
        }
        assertTrue(probe.getChildren().forPath("/ids/id/orders/worker").isEmpty(), "given back on undeploy");
    }

    @Test
    void readinessIsDownWhileZooKeeperCannotBeReached() {
        Map<String, String> config = zooKeeper("/down");
        config.put("distlock.zookeeper.connect", "127.0.0.1:" + Ports.free());
        config.put("distlock.zookeeper.connection-timeout", "PT1S");
        try (DistlockWeld weld = DistlockWeld.start(config, Stock.class)) {
            HealthCheckResponse ready = weld.container().select(LockStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
            assertEquals("distlock-zookeeper", ready.getName());
            assertEquals(HealthCheckResponse.Status.DOWN, ready.getStatus());
            assertTrue(ready.getData().orElseThrow().get("error").toString().contains("not connected"), ready.getData().toString());
            Exception refused = assertThrows(Exception.class, () -> weld.bean(Stock.class).reserve("A", () -> "ran"));
            assertTrue(DistlockWeld.messages(refused).contains("ZooKeeper"), DistlockWeld.messages(refused));
        }
    }

    @Test
    void badSettingsFailTheDeploymentNamingKeyAndValue() {
        assertDeploymentFails(Map.of("distlock.backend", "mongo"), "distlock.backend=mongo");
        assertDeploymentFails(Map.of("distlock.backend", "zookeeper"), "distlock.zookeeper.connect");
        assertDeploymentFails(with("distlock.zookeeper.connect", "zk1"), "'zk1' is not host:port");
        assertDeploymentFails(with("distlock.zookeeper.connect", "zk1:99999"), "'zk1:99999' is not host:port");
        assertDeploymentFails(with("distlock.zookeeper.root", "distlock"), "distlock.zookeeper.root=distlock");
        assertDeploymentFails(with("distlock.zookeeper.root", "/distlock/"), "distlock.zookeeper.root=/distlock/");
        assertDeploymentFails(with("distlock.zookeeper.session-timeout", "soon"), "distlock.zookeeper.session-timeout=soon");
        assertDeploymentFails(with("distlock.zookeeper.session-timeout", "0"), "distlock.zookeeper.session-timeout=0");
    }

    private static Map<String, String> with(String key, String value) {
        Map<String, String> config = zooKeeper("/bad");
        config.put(key, value);
        return config;
    }

    private static void assertDeploymentFails(Map<String, String> config, String expected) {
        Exception failure = assertThrows(Exception.class, () -> DistlockWeld.start(config, Stock.class).close());
        String messages = DistlockWeld.messages(failure);
        assertTrue(messages.contains(expected), "expected '" + expected + "' in: " + messages);
    }
}
