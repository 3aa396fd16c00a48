package dev.distlock.example.shop;

/** A SKU's stock as the API shows it. */
public record StockLevel(String sku, String name, int stock) {
}
