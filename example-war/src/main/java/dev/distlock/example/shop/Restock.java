package dev.distlock.example.shop;

/**
 * The body of {@code PUT /api/inventory/{sku}}: {@code {"stock":100}}, optionally with a
 * {@code "name"} and with {@code "stripes"}: in how many stripes to keep the stock from now on
 * (1 = unstriped; absent = as it is, or {@code shop.stock-stripes} for a new SKU).
 */
public record Restock(Integer stock, String name, Integer stripes) {
}
