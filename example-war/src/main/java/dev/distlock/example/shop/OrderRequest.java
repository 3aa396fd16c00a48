package dev.distlock.example.shop;

/** The body of {@code POST /api/orders}: {@code {"sku":"MUG-BLUE","quantity":1}}. */
public record OrderRequest(String sku, Integer quantity) {

    /** @throws ShopException (400) naming the first field that is missing or out of range */
    static OrderRequest validated(OrderRequest request) {
        if (request == null) {
            throw ShopException.invalid("a JSON body {\"sku\": \"...\", \"quantity\": n} is required");
        }
        return new OrderRequest(ShopLimits.sku(request.sku()), ShopLimits.quantity(request.quantity()));
    }
}
