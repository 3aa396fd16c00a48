package dev.distlock.example.shop;

import java.math.BigDecimal;

/**
 * The body of {@code POST /api/orders}: {@code {"sku":"MUG-BLUE","quantity":1}}. The quantity is
 * read as a decimal so that {@code 1.5} is refused rather than silently cut to {@code 1}.
 */
public record OrderRequest(String sku, BigDecimal quantity) {

    /** The request, checked: the SKU stripped, the quantity a whole number in range. */
    record Valid(String sku, int quantity) {
    }

    /** @throws ShopException (400) naming the first field that is missing or out of range */
    static Valid validated(OrderRequest request) {
        if (request == null) {
            throw ShopException.invalid("a JSON body {\"sku\": \"...\", \"quantity\": n} is required");
        }
        return new Valid(ShopLimits.sku(request.sku()), ShopLimits.quantity(request.quantity()));
    }
}
