package dev.distlock.example.shop;

/** The body of {@code PUT /api/inventory/{sku}}: {@code {"stock":100}}, optionally with a {@code "name"}. */
public record Restock(Integer stock, String name) {
}
