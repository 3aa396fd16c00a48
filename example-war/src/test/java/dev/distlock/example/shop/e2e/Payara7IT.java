package dev.distlock.example.shop.e2e;

import dev.distlock.example.shop.e2e.OtlpReceiver.ReceivedSpan;
import dev.distlock.testkit.Jdk21;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Jakarta EE 11: the same shop WAR on Payara Micro 7 (CDI 4.1, Weld 6), run by a JDK 21 or later
 * ({@link Jdk21}: the build's own, or one installed where JDKs usually are). Two servers sell exactly the
 * stock in {@link LockedShopIT}'s storm; the same servers, with MicroProfile Telemetry on, make each
 * locked call of a sampled request a span on the caller's trace; and the redeploy check of
 * {@link RedeployIT} passes in one server. Skipped by assumption where no JDK 21+ is found.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class Payara7IT {

    /** What Payara Micro 7 logs once it has deployed: "Payara Micro 7.2025.1 #badassmicrofish (build 7) ready in ...". */
    private static final String PAYARA_7 = "Payara Micro 7.";

    private Path java;
    private Path payara7;
    private E2eShop shop;
    private OtlpReceiver traces;
    private final ShopHttp http = new ShopHttp();

    @RegisterExtension
    final PrintLogsOnFailure logs = new PrintLogsOnFailure(() -> shop);

    @BeforeAll
    void findJdk21() {
        Optional<Path> found = Jdk21.java();
        if (found.isEmpty()) {
            return;
        }
        java = found.get();
        payara7 = E2eShop.path("shop.payara-micro-7");
        System.out.println("[payara7] " + payara7.getFileName() + " on Java " + Jdk21.version(java) + " (" + java + ")");
    }

    /** Each test is skipped, and reported so, without a JDK 21+. */
    @BeforeEach
    void needsJdk21() {
        assumeTrue(java != null, Jdk21.MISSING);
    }

    @AfterAll
    void stop() {
        http.close();
        E2eShop.closeAll(shop, traces);
    }

    /** The two servers the storm and the span check share, started by whichever runs first. */
    private E2eShop shop() throws Exception {
        if (traces == null) {
            traces = OtlpReceiver.start();
        }
        if (shop == null) {
            shop = E2eShop.startOn(payara7, java, "payara7", traces.serverSettings());
        }
        return shop;
    }

    @Test
    @Order(1)
    void stormOverTwoPayara7ServersSellsExactlyTheStock() throws Exception {
        E2eShop shop = shop();
        for (var server : shop.servers()) {
            assertTrue(server.logTail(2_000).contains(PAYARA_7), server.name() + " is not Payara Micro 7: " + server.log());
        }
        String sku = E2eShop.uniqueSku("STORM7");
        Storm.Result result = Storm.run(http, List.of(shop.url(0), shop.url(1)), sku, LockedShopIT.STOCK, LockedShopIT.BUYERS);
        System.out.println(result.figures("Payara Micro 7, locking on"));
        E2eShop.Ledger ledger = shop.ledger(sku);
        int stock = LockedShopIT.STOCK;
        assertAll(
                () -> assertEquals(stock, result.count(201), "orders placed"),
                () -> assertEquals(LockedShopIT.BUYERS - stock, result.count(409) + result.count(503), "409 sold out + 503 try again"),
                () -> assertEquals(List.of(), result.others(), "answers other than 201, 409, 503"),
                () -> assertEquals(0, result.badProblemBodies(), "409/503 answers without a problem body"),
                () -> assertEquals(0, result.badRetryAfter(), "503 answers without Retry-After"),
                () -> assertEquals(stock, result.distinctIds(), "distinct order ids"),
                () -> assertEquals(stock, result.distinctNumbers(), "distinct order numbers"),
                () -> assertEquals(0, result.finalStock(), "final stock"),
                () -> assertTrue(result.lowestStockSeen() >= 0, "stock went negative: " + result.lowestStockSeen()),
                () -> assertTrue(shop.fence(sku) >= 1_000_000_000_000_000L, "fenced stock writes: fence = " + shop.fence(sku)),
                () -> assertEquals(new E2eShop.Ledger(0, 0, stock, stock, stock), ledger, "database"));
    }

    /**
     * An order and a stock read, each on a sampled trace of the test's own ({@code traceparent}):
     * Payara's OpenTelemetry must send each call's lock span on that trace as a child of the
     * request's server span, with the key's template and never its value; and no lock span of any
     * call on no sampled trace (the storm's, the restock's).
     */
    @Test
    @Order(2)
    void lockedCallsAreSpansOnTheCallersTrace() throws Exception {
        String url = shop().url(0);
        String sku = E2eShop.uniqueSku("TRACED7");
        http.setStock(url, sku, 5);
        String orderTrace = OtlpReceiver.newTraceId();
        ShopHttp.Answer placed = http.send(ShopHttp.request(url + "/api/orders").header("Content-Type", "application/json")
                .header("traceparent", OtlpReceiver.traceparent(orderTrace))
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"" + sku + "\",\"quantity\":1}")).build());
        assertEquals(201, placed.status(), placed.toString());
        String readTrace = OtlpReceiver.newTraceId();
        ShopHttp.Answer read = http.send(ShopHttp.request(url + "/api/inventory/" + sku)
                .header("traceparent", OtlpReceiver.traceparent(readTrace)).GET().build());
        assertEquals(200, read.status(), read.toString());

        ReceivedSpan order = lockSpan("lock stock:{order.sku}", orderTrace);
        ReceivedSpan stockRead = lockSpan("lock inventory:{sku}", readTrace);
        System.out.println(order);
        System.out.println(stockRead);
        for (ReceivedSpan span : List.of(order, stockRead)) {
            Map<String, Object> attributes = span.attributes();
            ReceivedSpan request = traces.await(s -> s.traceId().equals(span.traceId()) && s.kind().equals("SERVER"),
                    "of the request on trace " + span.traceId(), Duration.ofSeconds(30));
            assertAll(span.toString(),
                    () -> assertEquals("INTERNAL", span.kind()),
                    () -> assertEquals(request.spanId(), span.parentSpanId(), "the lock span's parent is the request's span " + request),
                    () -> assertEquals("acquired", attributes.get("distlock.lock.outcome")),
                    () -> assertEquals("store", attributes.get("distlock.lock.source")),
                    () -> assertEquals(shop().names().get(0), attributes.get("distlock.lock.node"), "the holding server's name"),
                    () -> assertTrue(attributes.get("distlock.lock.wait") instanceof Double wait && wait >= 0 && wait < 10, "wait in seconds"),
                    () -> assertFalse(attributes.values().stream().anyMatch(value -> value.toString().contains(sku)), "the key's value"));
        }
        assertAll(order.toString(),
                () -> assertEquals("exclusive", order.attributes().get("distlock.lock.mode")),
                () -> assertEquals("LockedOrders.place(NumberedOrder)", order.attributes().get("distlock.lock.method")),
                () -> assertEquals("stock:{order.sku}", order.attributes().get("distlock.lock.template")),
                () -> assertTrue(order.attributes().get("distlock.lock.token") instanceof Long token && token > 0, "a fenced lock's token"));
        assertAll(stockRead.toString(),
                () -> assertEquals("read", stockRead.attributes().get("distlock.lock.mode")),
                () -> assertEquals("Inventory.level(String)", stockRead.attributes().get("distlock.lock.method")),
                () -> assertEquals("inventory:{sku}", stockRead.attributes().get("distlock.lock.template")));

        List<ReceivedSpan> others = traces.spans().stream()
                .filter(span -> span.scope().equals("dev.distlock") && !span.traceId().equals(orderTrace) && !span.traceId().equals(readTrace))
                .toList();
        assertEquals(List.of(), others, "lock spans of calls on no sampled trace");
        shop.close();
        shop = null;
    }

    private ReceivedSpan lockSpan(String name, String traceId) throws InterruptedException {
        return traces.await(span -> span.name().equals(name) && span.traceId().equals(traceId) && span.scope().equals("dev.distlock"),
                name + " on trace " + traceId, Duration.ofSeconds(30));
    }

    @Test
    @Order(3)
    void transactionsAreUnchangedAndALaterCallerOnTheThreadIsRefused() throws Exception {
        E2eShop shop = shop();
        TransactionChecksOnServers.assertOn(http, List.of(shop.url(0), shop.url(1)), "Payara Micro 7");
    }

    /**
     * Jakarta Concurrency 3.1's virtual-thread managed executor ({@code @ManagedExecutorDefinition(virtual
     * = true)}) on a locked {@code @Asynchronous} method: every call on a virtual thread, never two
     * holders of a key over both servers; the twin without the lock overlaps.
     */
    @Test
    @Order(4)
    void aLockedCallOnAVirtualThreadExecutorNeverHasTwoHolders() throws Exception {
        E2eShop shop = shop();
        TransactionChecksOnServers.assertAsynchronousNeverOverlaps(http, List.of(shop.url(0), shop.url(1)), "Payara Micro 7", "virtual");
    }

    /** With this pair's Redis killed, the circuit breaker outside the lock opens; it closes once Redis is back. */
    @Test
    @Order(5)
    void aCircuitBreakerOutsideTheLockOpensWhileRedisIsDown() throws Exception {
        E2eShop shop = shop();
        TransactionChecksOnServers.assertCircuitBreakerOpensWhileRedisIsDown(http, shop.url(0), shop.cluster().redis(), "Payara Micro 7");
    }

    @Test
    @Order(6)
    void redeployingInPayara7LeavesNothingOfDistlockBehind() throws Exception {
        RedeployIT.check("payara7-redeploy", payara7, java);
    }
}
