package dev.distlock.example.shop;

/**
 * An order about to be placed, with its id and its number already given. Both come from
 * distlock's generators and neither depends on the stock, so {@link Checkout} takes them before
 * any lock: the locked section holds only what must be serialized (the stock's read and write and
 * the order's insert), not a round trip for a number.
 */
public record NumberedOrder(long id, String number, String sku, int quantity) {
}
