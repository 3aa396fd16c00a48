package dev.distlock.example.shop;

import java.math.BigDecimal;

/** What the API accepts. */
final class ShopLimits {

    static final int MAX_SKU_LENGTH = 64;
    static final int MAX_NAME_LENGTH = 200;
    /** More than this in one order is a typo or an attack, not a purchase. */
    static final int MAX_QUANTITY = 1_000;
    static final int MAX_STOCK = 1_000_000;
    /** Enough to let 64 buyers of one SKU in at once; each stripe is a row and a lock of its own. */
    static final int MAX_STRIPES = 64;

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

    /** The {@code stripes} of a restock: absent, or 1 (unstriped) to {@link #MAX_STRIPES}. */
    static Integer stripes(Integer stripes) {
        if (stripes != null && (stripes < 1 || stripes > MAX_STRIPES)) {
            throw ShopException.invalid("stripes must be between 1 (unstriped) and " + MAX_STRIPES + ", was " + stripes);
        }
        return stripes;
    }

    /**
     * A number of stripes from the configuration.
     *
     * @throws IllegalArgumentException naming the key and the value when it is not 1 to {@link #MAX_STRIPES}
     */
    static int stripes(String value, String key) {
        int stripes;
        try {
            stripes = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            stripes = 0;
        }
        if (stripes < 1 || stripes > MAX_STRIPES) {
            throw new IllegalArgumentException(key + " must be a whole number from 1 (unstriped) to " + MAX_STRIPES + ", was '" + value + "'");
        }
        return stripes;
    }
}
