package dev.distlock.example.shop;

import dev.distlock.DistributedLocks;
import dev.distlock.Stripes;

/**
 * The lock keys of a SKU's stock as code spells them, for the locks taken without an annotation:
 * the same keys {@code @Locked("stock:{sku}")} and {@code @Locked("stock:{sku}:{stripe}")} render.
 */
final class StockKeys {

    private StockKeys() {
    }

    /** {@code stock:{sku}}, the lock of an unstriped SKU's stock and of every restock. */
    static String stock(String sku) {
        return "stock:" + DistributedLocks.encode(sku);
    }

    /** {@code stock:{sku}:{stripe}}, the lock of one stripe. */
    static String stripe(String sku, int stripe) {
        return stock(sku) + ':' + stripe;
    }

    /** The locks of stripes {@code 0..count-1}, to take all at once. */
    static String[] stripes(String sku, int count) {
        return Stripes.of(count).keys(stock(sku));
    }
}
