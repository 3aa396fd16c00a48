package dev.distlock.example.shop;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;

import java.io.Serializable;
import java.util.Objects;

/**
 * One stripe of a striped SKU's stock: the units of the SKU that buyers routed to this stripe can
 * take, locked on its own ({@code stock:{sku}:{stripe}}) so that the buyers of different stripes
 * are served at once. A striped SKU's stock is the sum of its stripes; its {@link StockItem} keeps
 * the name and a stock of 0. Like {@link StockItem}, a locked write carries the stripe lock's
 * fencing token in {@code fence}.
 */
@Entity
@IdClass(StockStripe.Key.class)
@Table(name = "shop_stock_stripe")
public class StockStripe {

    @Id
    @Column(length = ShopLimits.MAX_SKU_LENGTH)
    private String sku;

    @Id
    private int stripe;

    @Column(nullable = false)
    private int stock;

    @Column(nullable = false)
    private long fence;

    protected StockStripe() {
        // for JPA
    }

    StockStripe(String sku, int stripe, int stock, long fence) {
        this.sku = sku;
        this.stripe = stripe;
        this.stock = stock;
        this.fence = fence;
    }

    public String sku() {
        return sku;
    }

    public int stripe() {
        return stripe;
    }

    public int stock() {
        return stock;
    }

    public long fence() {
        return fence;
    }

    void setStock(int stock) {
        this.stock = stock;
    }

    /** The primary key: a SKU and the stripe's number, from 0. */
    public static class Key implements Serializable {
        private String sku;
        private int stripe;

        public Key() {
            // for JPA
        }

        public Key(String sku, int stripe) {
            this.sku = sku;
            this.stripe = stripe;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && key.stripe == stripe && Objects.equals(key.sku, sku);
        }

        @Override
        public int hashCode() {
            return Objects.hash(sku, stripe);
        }
    }
}
