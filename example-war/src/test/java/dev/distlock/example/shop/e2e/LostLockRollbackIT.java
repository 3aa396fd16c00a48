package dev.distlock.example.shop.e2e;

import dev.distlock.example.shop.launcher.PayaraNode;
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
        guardedDatabase = new PartitionProxy(E2eShop.databasePort(url));
        uncheckedDatabase = new PartitionProxy(E2eShop.databasePort(url));
        Map<String, String> checked = new HashMap<>(E2eShop.shortestWatchdog());
        checked.put("shop.datasource.url", E2eShop.throughProxy(url, guardedDatabase));
        Map<String, String> notChecked = new HashMap<>(E2eShop.shortestWatchdog());
        notChecked.put("distlock.transaction.verify-before-commit", "false");
        notChecked.put("shop.datasource.url", E2eShop.throughProxy(url, uncheckedDatabase));
        Map<String, Map<String, String>> servers = new LinkedHashMap<>();
        servers.put("lost-lock-checked", checked);
        servers.put("lost-lock-unchecked", notChecked);
        List<PayaraNode> started = shop.addServers(servers);
        guarded = started.get(0);
        unchecked = started.get(1);
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

    private ShopHttp.Answer stallOrder(PayaraNode server, PartitionProxy database, String sku) throws Exception {
        return LockStall.orders(shop, http, server, database, sku, 10, 1).get(0);
    }
}
