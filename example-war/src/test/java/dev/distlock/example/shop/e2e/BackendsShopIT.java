package dev.distlock.example.shop.e2e;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flash sale of {@link LockedShopIT} with the locks kept elsewhere than Redis, on two Payara Micro
 * servers: {@code distlock.backend=zookeeper} (Curator's test server in this JVM; the WAR carries
 * Curator) and {@code distlock.backend=jdbc} (the shop's own DataSource, {@code java:app/jdbc/shop}).
 * 600 buyers, 100 units: exactly 100 sold, and the books agree. {@link UnlockedShopIT} is the twin
 * that shows the storm oversells without a lock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BackendsShopIT {

    private final ShopHttp http = new ShopHttp();
    private final List<E2eShop> shops = new ArrayList<>();
    private E2eShop current;
    private TestingServer zooKeeper;

    @RegisterExtension
    final PrintLogsOnFailure logs = new PrintLogsOnFailure(() -> current);

    @AfterAll
    void stop() throws Exception {
        http.close();
        shops.forEach(E2eShop::close);
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @Test
    void zooKeeperLocksSellEachUnitOnce() throws Exception {
        zooKeeper = new TestingServer(true);
        flashSale("zookeeper", Map.of("distlock.backend", "zookeeper",
                "distlock.zookeeper.connect", zooKeeper.getConnectString()));
    }

    @Test
    void databaseLocksSellEachUnitOnce() throws Exception {
        flashSale("jdbc", Map.of("distlock.backend", "jdbc", "distlock.jdbc.datasource", "java:app/jdbc/shop"));
    }

    private void flashSale(String backend, Map<String, String> properties) throws Exception {
        current = E2eShop.start("backend-" + backend, properties);
        shops.add(current);
        String sku = E2eShop.uniqueSku("BACKEND");
        java.util.concurrent.CompletableFuture<Storm.Result> storm = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> Storm.run(http, List.of(current.url(0), current.url(1)), sku, LockedShopIT.STOCK, LockedShopIT.BUYERS));
        java.util.Set<String> heldBy = holdingServers(storm, sku);
        Storm.Result result = storm.get();
        System.out.println(result.figures("locks in " + backend) + "; servers seen holding the SKU's lock: " + heldBy);
        assertFalse(heldBy.isEmpty(), "no holder of the SKU's lock was named by its server in " + backend);
        assertTrue(current.names().containsAll(heldBy), "holders named by servers that are not the shop's: " + heldBy);
        E2eShop.Ledger ledger = current.ledger(sku);
        System.out.println("[storm] locks in " + backend + ", in the database: " + ledger);
        assertAll(
                () -> assertEquals(LockedShopIT.STOCK, result.count(201), "orders placed"),
                () -> assertEquals(LockedShopIT.BUYERS - LockedShopIT.STOCK, result.count(409) + result.count(503),
                        "409 sold out + 503 try again"),
                () -> assertEquals(List.of(), result.others(), "answers other than 201, 409, 503"),
                () -> assertEquals(LockedShopIT.STOCK, result.distinctIds(), "distinct order ids"),
                () -> assertEquals(0, ledger.stock(), "stock left"),
                () -> assertEquals(LockedShopIT.STOCK, ledger.orders(), "orders in the database"),
                () -> assertEquals(LockedShopIT.STOCK, ledger.unitsOrdered(), "units ordered"));
    }

    /** Which server holds: the servers {@code GET /api/locks} names as holding the SKU's lock while the storm runs. */
    private java.util.Set<String> holdingServers(java.util.concurrent.CompletableFuture<?> storm, String sku) throws Exception {
        java.util.Set<String> heldBy = new java.util.TreeSet<>();
        try (ShopHttp inspector = new ShopHttp()) {
            while (!storm.isDone()) {
                for (int server = 0; server < 2; server++) {
                    ShopHttp.Answer answer = inspector.get(current.url(server) + "/api/locks?prefix=stock:" + sku);
                    assertEquals(200, answer.status(), answer::toString);
                    for (jakarta.json.JsonObject lock : answer.jsonArray().getValuesAs(jakarta.json.JsonObject.class)) {
                        heldBy.addAll(lock.getJsonObject("storeServers").values().stream()
                                .map(value -> ((jakarta.json.JsonString) value).getString()).toList());
                    }
                }
                Thread.sleep(10);
            }
        }
        return heldBy;
    }
}
