package dev.distlock.example.shop.e2e;

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

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Jakarta EE 11: the same shop WAR on Payara Micro 7 (CDI 4.1, Weld 6), run by a JDK 21 or later
 * ({@link Jdk21}: the build's own, or one installed where JDKs usually are). Two servers sell exactly the
 * stock in {@link LockedShopIT}'s storm, and the redeploy check of {@link RedeployIT} passes in one
 * server. Skipped by assumption where no JDK 21+ is found.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class Payara7IT {

    /** What Payara Micro 7 logs once it has deployed: "Payara Micro 7.2025.1 #badassmicrofish (build 7) ready in ...". */
    private static final String PAYARA_7 = "Payara Micro 7.";

    private Path java;
    private Path payara7;
    private E2eShop shop;
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
        if (shop != null) {
            shop.close();
        }
    }

    @Test
    @Order(1)
    void stormOverTwoPayara7ServersSellsExactlyTheStock() throws Exception {
        shop = E2eShop.startOn(payara7, java, "payara7", Map.of());
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
        shop.close();
        shop = null;
    }

    @Test
    @Order(2)
    void redeployingInPayara7LeavesNothingOfDistlockBehind() throws Exception {
        RedeployIT.check("payara7-redeploy", payara7, java);
    }
}
