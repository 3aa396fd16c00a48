package dev.distlock.example.shop;

import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The number of stripes as configured and as requested, and how a restock spreads the stock over them. */
class StripesConfigTest {

    @Test
    void aConfiguredCountIsAWholeNumberFromOneTo64() {
        assertEquals(1, ShopLimits.stripes("1", "shop.stock-stripes"));
        assertEquals(16, ShopLimits.stripes(" 16 ", "shop.stock-stripes"));
        assertEquals(64, ShopLimits.stripes("64", "shop.stock-stripes"));
        for (String bad : new String[] {"0", "65", "-4", "sixteen", "", "1.5"}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> ShopLimits.stripes(bad, "shop.stock-stripes"));
            assertTrue(refused.getMessage().startsWith("shop.stock-stripes must be a whole number from 1 (unstriped) to 64, was '" + bad + "'"),
                    refused.getMessage());
        }
    }

    @Test
    void aRequestedCountIsAbsentOrFromOneTo64() {
        assertNull(ShopLimits.stripes((Integer) null));
        assertEquals(8, ShopLimits.stripes(8));
        for (int bad : new int[] {0, 65, -1}) {
            ShopException refused = assertThrows(ShopException.class, () -> ShopLimits.stripes(bad));
            assertEquals(400, refused.status());
            assertTrue(refused.getMessage().contains("was " + bad), refused.getMessage());
        }
    }

    @Test
    void aRestockSpreadsTheStockEvenlyAndLosesNoUnit() {
        assertEquals("3 3 2 2", IntStream.range(0, 4).mapToObj(i -> String.valueOf(StockLedger.share(10, 4, i)))
                .reduce((a, b) -> a + " " + b).orElseThrow());
        for (int stock : new int[] {0, 1, 15, 16, 17, 1_000_000}) {
            for (int rows : new int[] {2, 7, 16, 64}) {
                int s = stock;
                int r = rows;
                int sum = IntStream.range(0, rows).map(i -> StockLedger.share(s, r, i)).sum();
                int max = IntStream.range(0, rows).map(i -> StockLedger.share(s, r, i)).max().orElseThrow();
                int min = IntStream.range(0, rows).map(i -> StockLedger.share(s, r, i)).min().orElseThrow();
                assertEquals(stock, sum, stock + " in " + rows);
                assertTrue(max - min <= 1, stock + " in " + rows);
            }
        }
    }
}
