package dev.distlock.example.shop.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same flash sale with {@code shop.locking=false} on both servers: the read-check-write races
 * and the shop oversells. Proves that {@link LockedShopIT}'s storm would see a missing lock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnlockedShopIT {

    private E2eShop shop;
    private final ShopHttp http = new ShopHttp();

    @RegisterExtension
    final PrintLogsOnFailure logs = new PrintLogsOnFailure(() -> shop);

    @BeforeAll
    void start() throws InterruptedException {
        shop = E2eShop.start("unlocked", Map.of("shop.locking", "false"));
    }

    @AfterAll
    void stop() {
        http.close();
        if (shop != null) {
            shop.close();
        }
    }

    @Test
    void stormWithoutTheLockOversells() throws Exception {
        String sku = E2eShop.uniqueSku("STORM");
        Storm.Result result = Storm.run(http, List.of(shop.url(0), shop.url(1)), sku, LockedShopIT.STOCK, LockedShopIT.BUYERS);
        System.out.println(result.figures("locking OFF"));
        E2eShop.Ledger ledger = shop.ledger(sku);
        System.out.println("[storm] locking OFF, in the database: " + ledger);

        long sold = result.count(201);
        boolean oversold = sold > LockedShopIT.STOCK;
        boolean inconsistent = LockedShopIT.STOCK - ledger.unitsOrdered() != ledger.stock();
        assertTrue(oversold || inconsistent, "without the lock the storm should oversell or lose a stock update, but "
                + sold + " orders were placed and the stock is " + ledger.stock() + ": " + result.figures("locking OFF"));
    }

    /**
     * The twin of {@code LongStormIT}'s striped storm: the same 16 stripes, each read, checked and
     * written back without its lock. Four buyers per stripe at a time are enough to oversell.
     */
    @Test
    void stripedStockWithoutTheLocksOversells() throws Exception {
        String sku = E2eShop.uniqueSku("STRIPED");
        http.setStock(shop.url(0), sku, LockedShopIT.STOCK, 16);
        Storm.Result result = Storm.run(http, List.of(shop.url(0), shop.url(1)), sku, LockedShopIT.STOCK, LockedShopIT.BUYERS);
        System.out.println(result.figures("16 stripes, locking OFF"));
        E2eShop.Ledger ledger = shop.ledger(sku);
        System.out.println("[storm] 16 stripes, locking OFF, in the database: " + ledger);

        assertEquals(16, ledger.stripes(), "the storm sold from 16 stripes");
        long sold = result.count(201);
        boolean oversold = sold > LockedShopIT.STOCK;
        boolean inconsistent = LockedShopIT.STOCK - ledger.unitsOrdered() != ledger.stock();
        assertTrue(oversold || inconsistent, "without the stripe locks the storm should oversell or lose a stock update, but "
                + sold + " orders were placed and the stock is " + ledger.stock() + ": " + result.figures("16 stripes, locking OFF"));
    }
}
