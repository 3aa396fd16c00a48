package dev.distlock.example.shop;

/**
 * What a restock did: the stock it set, and the stock it replaced ({@code 0} for a new SKU). Read
 * and written under the SKU's order lock, so that {@code stock - previousStock} is exactly the
 * number of units the restock added (or took away) between two orders.
 */
public record StockChange(String sku, String name, int stock, int previousStock) {
}
