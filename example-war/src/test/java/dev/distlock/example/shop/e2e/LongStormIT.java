package dev.distlock.example.shop.e2e;

import dev.distlock.testkit.DatabaseProcess;
import dev.distlock.testkit.EmbeddedPostgres;
import dev.distlock.testkit.ServerUnavailable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sale that lasts: 8,000 orders of one SKU from 64 buyers at once over two servers, the stock
 * set again three times in the middle of it, and four readers of the stock all along. No fault of
 * any kind is injected, so every answer must be an order (201) or "sold out" (409): a single 503
 * means a buyer read stock its predecessor had already changed, or two held the lock at once. The
 * stock is checked against the database: what it started with, plus what the restocks added, less
 * what it ends with, is exactly the units of the orders in the database, which are exactly the
 * 201s, each with its own id.
 *
 * <p>Runs on the H2 server of the test's own with the whole plan; with the stock in 16 stripes and on
 * PostgreSQL (the server {@code DISTLOCK_TEST_POSTGRES_URL} names, or else one of the test's own,
 * {@link EmbeddedPostgres}; skipped, not passed, where it cannot run) with {@link #SHORTER_PLAN}, the
 * same sale over 6,000 orders and two restocks, to keep the default run short. The three storms
 * sell 20,000 orders in all, each at least 6,000: an overlap that happens once in 1,000 orders
 * shows in each with a chance of 1 - e^-6 (99.75 %). {@code -Dshop.long-storm.orders=20000} runs
 * the H2 sale at the length earlier runs measured. The two sales on H2 share two servers, each
 * selling a SKU of its own.
 * {@code -Dshop.h2.settings=;DB_CLOSE_DELAY=-1} runs it on H2 with result reuse on: it then fails
 * with 503s (see {@code H2StaleResultTest}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LongStormIT {

    static final LongStorm.Plan PLAN = new LongStorm.Plan(Integer.getInteger("shop.long-storm.orders", 8_000), 64, 4, 1_500, 2_500,
            1_500);
    static final LongStorm.Plan SHORTER_PLAN = new LongStorm.Plan(6_000, 64, 4, 1_500, 2_500, 1_500);

    /** The H2 cases' two servers, started by whichever runs first; each storm sells a SKU of its own. */
    private E2eShop onH2;
    /** The shop the running case sells through, whose logs a failure prints. */
    private E2eShop shop;
    private final ShopHttp http = new ShopHttp();

    @RegisterExtension
    final PrintLogsOnFailure logs = new PrintLogsOnFailure(() -> shop);

    @AfterAll
    void stop() {
        http.close();
        E2eShop.closeAll(onH2);
    }

    private E2eShop onH2() throws InterruptedException {
        if (onH2 == null) {
            onH2 = E2eShop.start("long-storm-h2", Map.of(), null);
        }
        return onH2;
    }

    @Test
    void onH2EveryOrderIsPlacedOrSoldOutAndTheStockAddsUp() throws Exception {
        shop = onH2();
        sellAndCheck("H2 server (" + System.getProperty("shop.h2.settings", "the shop's settings") + ")", PLAN, 1);
    }

    /**
     * The same sale with the stock in 16 stripes (the SKU made with them; restocks keep them), each
     * with its own lock: restocks spread the stock again, readers sum it. Its twin without the locks
     * is {@code UnlockedShopIT.stripedStockWithoutTheLocksOversells}.
     */
    @Test
    void withStripedStockEveryOrderIsPlacedOrSoldOutAndTheStockAddsUp() throws Exception {
        shop = onH2();
        String sku = sellAndCheck("H2 server, 16 stripes", SHORTER_PLAN, 16);
        assertEquals(16, shop.ledger(sku).stripes(), "the storm sold from 16 stripes");
    }

    @Test
    void onPostgresqlEveryOrderIsPlacedOrSoldOutAndTheStockAddsUp() throws Exception {
        String url = System.getenv(E2eShop.POSTGRES_URL_VARIABLE);
        String database = "PostgreSQL";
        if (url == null || url.isBlank()) {
            try {
                DatabaseProcess postgres = EmbeddedPostgres.shared();
                url = postgres.jdbcUrl();
                database = "PostgreSQL of the test's own (" + postgres + ")";
            } catch (ServerUnavailable cannotRunHere) {
                Assumptions.abort("PostgreSQL cannot run here (" + cannotRunHere.getMessage() + "): set "
                        + E2eShop.POSTGRES_URL_VARIABLE + " to a server's JDBC URL to run this case");
            }
        }
        try (E2eShop onPostgresql = E2eShop.start("long-storm-postgresql", Map.of(), url.strip())) {
            shop = onPostgresql;
            sellAndCheck(database, SHORTER_PLAN, 1);
        }
    }

    /** @return the SKU sold, made with {@code stripes} stripes */
    private String sellAndCheck(String database, LongStorm.Plan plan, int stripes) throws Exception {
        String sku = E2eShop.uniqueSku("LONG");
        if (stripes > 1) {
            http.setStock(shop.url(0), sku, plan.initialStock(), stripes);
        }
        LongStorm.Result result = LongStorm.run(http, List.of(shop.url(0), shop.url(1)), sku, plan);
        System.out.println(result.figures(database));
        E2eShop.Ledger ledger = shop.ledger(sku);
        System.out.println("[long storm] " + database + ", in the database: " + ledger);

        assertAll(
                () -> assertEquals(List.of(), result.others(), "answers other than 201 and 409, failed reads or restocks"),
                () -> assertEquals(plan.orders(), result.count(201) + result.count(409), "orders answered 201 or 409"),
                () -> assertTrue(result.count(201) > 0 && result.count(409) > 0,
                        "the plan sells out between restocks: " + result.statuses()),
                () -> assertEquals(plan.restocks(), result.restocks(), "restocks answered 200"),
                () -> assertEquals(result.count(201), result.distinctIds(), "distinct order ids"),
                () -> assertEquals(Set.of(), Storm.nonNumericIds(result.ids()), "ids that are not positive numbers"),
                () -> assertTrue(result.lowestStockSeen() >= 0, "stock went negative: " + result.lowestStockSeen()),
                () -> assertEquals(result.count(201), ledger.orders(), "orders in the database"),
                () -> assertEquals(ledger.orders(), ledger.distinctIds(), "distinct ids in the database"),
                () -> assertEquals(result.count(201), ledger.unitsOrdered(), "units ordered in the database"),
                () -> assertEquals(result.finalStock(), ledger.stock(), "final stock, API and database"),
                () -> assertEquals(ledger.unitsOrdered(), result.unitsSoldByStock(),
                        "initial stock + units restocked - final stock = units ordered (no update lost)"));
        return sku;
    }
}
