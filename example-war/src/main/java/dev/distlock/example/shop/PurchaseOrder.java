package dev.distlock.example.shop;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;

/** A placed order. Its id comes from distlock's Snowflake generator, not from the database. */
@Entity
@Table(name = "shop_order", indexes = @Index(name = "shop_order_sku", columnList = "sku"))
public class PurchaseOrder {

    @Id
    private long id;

    @Column(nullable = false, length = ShopLimits.MAX_SKU_LENGTH)
    private String sku;

    @Column(nullable = false)
    private int quantity;

    @Column(nullable = false)
    private OffsetDateTime placedAt;

    protected PurchaseOrder() {
        // for JPA
    }

    public PurchaseOrder(long id, String sku, int quantity, OffsetDateTime placedAt) {
        this.id = id;
        this.sku = sku;
        this.quantity = quantity;
        this.placedAt = placedAt;
    }

    public Order view() {
        return new Order(id, sku, quantity, placedAt);
    }
}
