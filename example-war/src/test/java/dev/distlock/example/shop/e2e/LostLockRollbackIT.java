package dev.distlock.example.shop.e2e;

import dev.distlock.example.shop.launcher.PayaraNode;
import dev.distlock.testkit.PartitionProxy;
import dev.distlock.testkit.Resp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No commit under a lost lock, with the lock outside {@code @Transactional} as the shop has it.
 * An order is stalled inside its transaction, after it took the SKU's lock: its database stops
 * answering (a proxy holds the traffic back) and then its whole server is frozen (SIGSTOP) for
 * longer than the lease, so its watchdog stands still and Redis lets the lock expire. Then both go
 * on. Nobody else wrote the SKU meanwhile, so the fenced stock write cannot tell; what must catch it
 * is distlock's check just before the commit.
 *
 * <p>On the server with the check (the default), the order is rolled back and answered 503 "Lock
 * lost", and the database shows nothing of it. The twin runs on a server with
 * {@code distlock.transaction.verify-before-commit=false}: the same stall commits the order
 * (stock 9, one order), and the release only reports afterwards that the lock was gone (the shop
 * then answers 201 for the order it finds committed).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LostLockRollbackIT {

    private static final Duration LOCK_EXPIRY_WAIT = Duration.ofSeconds(15);

    private E2eShop shop;
    private final ShopHttp http = new ShopHttp();
    private PartitionProxy guardedDatabase;
    private PartitionProxy uncheckedDatabase;
    private PayaraNode guarded;
    private PayaraNode unchecked;

    @RegisterExtension
    final PrintLogsOnFailure logs = new PrintLogsOnFailure(() -> shop);

    @BeforeAll
    void start() throws Exception {
        shop = E2eShop.withoutServers("lost-lock", E2eShop.externalDatabaseUrl());
        String url = shop.cluster().database().url();
        guardedDatabase = new PartitionProxy(databasePort(url));
        uncheckedDatabase = new PartitionProxy(databasePort(url));
        Map<String, String> checked = new HashMap<>(E2eShop.shortestWatchdog());
        checked.put("shop.datasource.url", throughProxy(url, guardedDatabase));
        guarded = shop.addServer("lost-lock-checked", checked);
        Map<String, String> notChecked = new HashMap<>(E2eShop.shortestWatchdog());
        notChecked.put("distlock.transaction.verify-before-commit", "false");
        notChecked.put("shop.datasource.url", throughProxy(url, uncheckedDatabase));
        unchecked = shop.addServer("lost-lock-unchecked", notChecked);
    }

    @AfterAll
    void stop() {
        http.close();
        E2eShop.closeAll(guardedDatabase, uncheckedDatabase, shop);
    }

    @Test
    void anOrderWhoseLockExpiredWhileItWasStalledIsRolledBackAndAnswered503() throws Exception {
        String sku = E2eShop.uniqueSku("STALLED");
        ShopHttp.Answer answer = stallOrder(guarded, guardedDatabase, sku);
        E2eShop.Ledger ledger = shop.ledger(sku);
        System.out.println("[lost lock] checked before commit: " + answer + " | database: " + ledger);
        assertAll(
                () -> assertEquals(503, answer.status(), answer::toString),
                () -> assertTrue(Storm.isProblem(answer, 503), answer::toString),
                () -> assertEquals("Lock lost", answer.json().getString("title"), answer::toString),
                () -> assertNotNull(answer.retryAfter(), "Retry-After"),
                () -> assertEquals(new E2eShop.Ledger(10, 0, 0, 0, 0), ledger, "nothing the stalled order wrote is in the database"));

        ShopHttp.Answer again = http.post(guarded.url() + "/api/orders", "{\"sku\":\"" + sku + "\",\"quantity\":1}");
        assertEquals(201, again.status(), () -> "the order retried as the answer says: " + again);
        assertEquals(new E2eShop.Ledger(9, 0, 1, 1, 1), shop.ledger(sku));
    }

    /** The twin: without the check, the stalled order's work is committed although its lock was gone. */
    @Test
    void withoutTheCheckTheStalledOrderIsCommitted() throws Exception {
        String sku = E2eShop.uniqueSku("UNCHECKED");
        ShopHttp.Answer answer = stallOrder(unchecked, uncheckedDatabase, sku);
        E2eShop.Ledger ledger = shop.ledger(sku);
        System.out.println("[lost lock] twin, not checked before commit: " + answer + " | database: " + ledger);
        assertAll(
                () -> assertEquals(new E2eShop.Ledger(9, 0, 1, 1, 1), ledger, "the order was committed under a lost lock"),
                // Found lost only at the release, after the commit: the order is in the database, and the
                // shop answers for it (its fenced stock write was accepted, so it stands).
                () -> assertEquals(201, answer.status(), "the committed order is answered as placed: " + answer));
    }

    /**
     * Sets the stock to 10 and places one order on {@code server}, stalled inside its transaction
     * until the lock has expired in Redis; returns the order's answer.
     */
    private ShopHttp.Answer stallOrder(PayaraNode server, PartitionProxy database, String sku) throws Exception {
        http.setStock(server.url(), sku, 10);
        String lockKey = "shop:lock:stock:" + sku;
        // The order reads the stock before it queues for the lock: let it, while the lock is held
        // here for a moment; then stop the database, so that once the order has the lock it stalls
        // at its first statement inside the transaction.
        try (Resp redis = Resp.connect(shop.cluster().redis().port(), 5_000)) {
            redis.command("HSET", lockKey, TEST_HOLDER, "1");
            redis.command("PEXPIRE", lockKey, "3000");
        }
        CompletableFuture<ShopHttp.Answer> order = http.sendAsync(ShopHttp.order(server.url(), sku, 1));
        Thread.sleep(1_500);
        database.cut();
        try {
            Eventually.that(() -> heldByOtherThanTheTest(lockKey), "the order took the SKU's lock", Duration.ofSeconds(30));
            server.pause();
            try {
                Eventually.that(() -> !redisExists(lockKey), "the frozen server's lock expired in Redis", LOCK_EXPIRY_WAIT);
            } finally {
                database.heal();
                server.resume();
            }
        } finally {
            database.heal();
        }
        return order.get(2, TimeUnit.MINUTES);
    }

    /** The field of the lock hash the test holds the lock under; the shop's owners look otherwise. */
    private static final String TEST_HOLDER = "lost-lock-test:1";

    private boolean heldByOtherThanTheTest(String key) {
        try (Resp redis = Resp.connect(shop.cluster().redis().port(), 5_000)) {
            return redis.hgetall(key).keySet().stream().anyMatch(field -> !field.equals(TEST_HOLDER));
        }
    }

    private boolean redisExists(String key) {
        try (Resp redis = Resp.connect(shop.cluster().redis().port(), 5_000)) {
            return redis.exists(key);
        }
    }

    private static final Pattern HOST_PORT = Pattern.compile("//([^/:;?]+):(\\d+)");

    private static int databasePort(String url) {
        Matcher matcher = HOST_PORT.matcher(url);
        if (!matcher.find() || !InetAddress.getLoopbackAddress().getHostAddress().equals(matcher.group(1))
                && !matcher.group(1).equals("localhost")) {
            throw new IllegalStateException("the test proxies a database on this machine (127.0.0.1:port), not " + url);
        }
        return Integer.parseInt(matcher.group(2));
    }

    private static String throughProxy(String url, PartitionProxy proxy) {
        return HOST_PORT.matcher(url).replaceFirst("//127.0.0.1:" + proxy.port());
    }
}
