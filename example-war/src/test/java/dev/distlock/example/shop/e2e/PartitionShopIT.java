package dev.distlock.example.shop.e2e;

import dev.distlock.testkit.PartitionProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flash sale while one server is cut off from Redis, several times, and still reaches the
 * database, and the other server still reaches both. The cut server reaches Redis through a
 * {@link PartitionProxy}; both run with the shortest watchdog lease distlock allows (1 s), so that a
 * cut of {@value #CUT_MILLIS} ms outlasts the cut server's leases and the other server takes the
 * SKU's lock while the cut one may still be in an order.
 *
 * <p>What must hold: no oversell, the database's stock and orders add up (no order written under a
 * lost lock: the stock write is fenced, and distlock checks the lock before each commit), every
 * answer 201, 409 or 503 with {@code Retry-After} (an order committed before its server found the
 * lock gone stands, and is answered 201: see {@code Checkout}), and the cut server takes orders
 * again once its link is back, without a restart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PartitionShopIT {

    /** Sized so that the storm outlasts two cuts: 300 units sold in about 5 s, cut once, on this 2-core machine. */
    private static final int STOCK = 450;
    private static final int BUYERS = 2_250;
    private static final int CUTS = 4;
    private static final long CUT_MILLIS = 2_000;
    private static final long LINKED_MILLIS = 500;

    private E2eShop shop;
    private PartitionProxy link;
    private final ShopHttp http = new ShopHttp();

    @RegisterExtension
    final PrintLogsOnFailure logs = new PrintLogsOnFailure(() -> shop);

    @BeforeAll
    void start() throws Exception {
        shop = E2eShop.withoutServers("partition", E2eShop.externalDatabaseUrl());
        link = new PartitionProxy(shop.cluster().redis().port());
        Map<String, String> cut = new HashMap<>(E2eShop.shortestWatchdog());
        cut.put("distlock.redis.address", "redis://" + link.address());
        Map<String, Map<String, String>> servers = new LinkedHashMap<>();
        servers.put("partition-cut", cut);
        servers.put("partition-linked", E2eShop.shortestWatchdog());
        shop.addServers(servers);
    }

    @AfterAll
    void stop() {
        http.close();
        E2eShop.closeAll(link, shop);
    }

    @Test
    void aServerCutOffFromRedisMidStormOversellsNothingAndServesAgainWhenTheLinkReturns() throws Exception {
        String sku = E2eShop.uniqueSku("PARTITION");
        String cutServer = shop.url(0);
        CompletableFuture<Storm.Result> storm = CompletableFuture.supplyAsync(
                () -> Storm.run(http, List.of(cutServer, shop.url(1)), sku, STOCK, BUYERS));
        Thread.sleep(LINKED_MILLIS);
        for (int cut = 0; cut < CUTS && !storm.isDone(); cut++) {
            link.cut();
            Thread.sleep(CUT_MILLIS);
            link.heal();
            Thread.sleep(LINKED_MILLIS);
        }
        int cuts = link.cuts();
        Storm.Result result = storm.get(5, TimeUnit.MINUTES);
        System.out.println(result.figures("one server cut off from Redis " + cuts + " times for " + CUT_MILLIS + " ms"));
        E2eShop.Ledger ledger = shop.ledger(sku);
        System.out.println("[storm] partition, in the database: " + ledger);
        assertAll(
                () -> assertTrue(cuts >= 2, "the link was cut only " + cuts + " times during the storm"),
                () -> assertEquals(List.of(), result.others(), "answers other than 201, 409 and 503"),
                () -> assertEquals(0, result.badRetryAfter(), "503 answers without Retry-After"),
                () -> assertEquals(0, result.badProblemBodies(), "409/503 answers without a problem body"),
                () -> assertTrue(result.count(201) <= STOCK, "oversold: " + result.count(201) + " orders for " + STOCK),
                () -> assertEquals(result.count(201), ledger.orders(), "every order in the database was answered 201, no other"),
                () -> assertEquals(STOCK - ledger.unitsOrdered(), ledger.stock(), "stock + units ordered = initial stock"),
                () -> assertEquals(ledger.orders(), ledger.unitsOrdered(), "one unit per order"),
                () -> assertEquals(ledger.orders(), ledger.distinctIds(), "distinct order ids"));

        String after = E2eShop.uniqueSku("HEALED");
        http.setStock(shop.url(1), after, 5);
        long healed = System.nanoTime();
        ShopHttp.Answer served = Eventually.answer(() -> http.post(cutServer + "/api/orders",
                "{\"sku\":\"" + after + "\",\"quantity\":1}"), answer -> answer.status() == 201, 30);
        System.out.printf("[storm] partition: the cut server took an order %d ms after the storm%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed));
        assertEquals(201, served.status(), () -> "the cut server after its link returned: " + served);
    }
}
