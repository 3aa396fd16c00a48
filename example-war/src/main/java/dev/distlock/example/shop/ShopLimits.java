package dev.distlock.example.shop;

import java.math.BigDecimal;

/** What the API accepts. */
final class ShopLimits {

    static final int MAX_SKU_LENGTH = 64;
    static final int MAX_NAME_LENGTH = 200;
    /** More than this in one order is a typo or an attack, not a purchase. */
    static final int MAX_QUANTITY = 1_000;
    static final int MAX_STOCK = 1_000_000;

    private ShopLimits() {
    }

    /** @return the SKU without surrounding blanks */
    static String sku(String sku) {
        if (sku == null || sku.isBlank()) {
            throw ShopException.invalid("sku is required and must not be blank");
        }
        String stripped = sku.strip();
        if (stripped.length() > MAX_SKU_LENGTH) {
            throw ShopException.invalid("sku must be at most " + MAX_SKU_LENGTH + " characters, was " + stripped.length());
        }
        return stripped;
    }

    static int quantity(BigDecimal quantity) {
        if (quantity == null) {
            throw ShopException.invalid("quantity is required");
        }
        if (quantity.signum() > 0 && quantity.stripTrailingZeros().scale() > 0) {
            throw ShopException.invalid("quantity must be a whole number, was " + quantity.toPlainString());
        }
        if (quantity.compareTo(BigDecimal.ONE) < 0 || quantity.compareTo(BigDecimal.valueOf(MAX_QUANTITY)) > 0) {
            throw ShopException.invalid("quantity must be between 1 and " + MAX_QUANTITY + ", was " + quantity.toPlainString());
        }
        return quantity.intValueExact();
    }

    static int stock(Integer stock) {
        if (stock == null) {
            throw ShopException.invalid("stock is required");
        }
        if (stock < 0 || stock > MAX_STOCK) {
            throw ShopException.invalid("stock must be between 0 and " + MAX_STOCK + ", was " + stock);
        }
        return stock;
    }

    static String name(String name, String fallback) {
        if (name == null || name.isBlank()) {
            return fallback;
        }
        String stripped = name.strip();
        if (stripped.length() > MAX_NAME_LENGTH) {
            throw ShopException.invalid("name must be at most " + MAX_NAME_LENGTH + " characters, was " + stripped.length());
        }
        return stripped;
    }
}
