package dev.distlock.example.shop;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;

/**
 * A placed order. Its id comes from distlock's Snowflake generator, its number (what a customer
 * reads over the phone, {@code 20261124-000042}) from distlock's daily serials; neither from the
 * database, which only makes sure, by a unique index, that no number is ever stored twice.
 */
@Entity
@Table(name = "shop_order", indexes = {
        @Index(name = "shop_order_sku", columnList = "sku"),
        @Index(name = "shop_order_number", columnList = "number", unique = true)})
public class PurchaseOrder {

    @Id
    private long id;

    @Column(nullable = false, length = 40)
    private String number;

    @Column(nullable = false, length = ShopLimits.MAX_SKU_LENGTH)
    private String sku;

    @Column(nullable = false)
    private int quantity;

    @Column(nullable = false)
    private OffsetDateTime placedAt;

    protected PurchaseOrder() {
        // for JPA
    }

    public PurchaseOrder(long id, String number, String sku, int quantity, OffsetDateTime placedAt) {
        this.id = id;
        this.number = number;
        this.sku = sku;
        this.quantity = quantity;
        this.placedAt = placedAt;
    }

    public Order view() {
        return new Order(id, number, sku, quantity, placedAt);
    }
}
