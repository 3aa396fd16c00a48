package dev.distlock.example.shop;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * One SKU and how many units are left. Deliberately no {@code @Version} and no
 * {@code SELECT ... FOR UPDATE}: the read-check-write in {@link OrderBook} is protected by
 * distlock alone, so that switching the lock off shows the oversell.
 */
@Entity
@Table(name = "shop_stock")
public class StockItem {

    @Id
    @Column(length = ShopLimits.MAX_SKU_LENGTH)
    private String sku;

    @Column(nullable = false, length = ShopLimits.MAX_NAME_LENGTH)
    private String name;

    @Column(nullable = false)
    private int stock;

    protected StockItem() {
        // for JPA
    }

    public StockItem(String sku, String name, int stock) {
        this.sku = sku;
        this.name = name;
        this.stock = stock;
    }

    public String sku() {
        return sku;
    }

    public int stock() {
        return stock;
    }

    public void setStock(int stock) {
        this.stock = stock;
    }

    public void setName(String name) {
        this.name = name;
    }

    public StockLevel view() {
        return new StockLevel(sku, name, stock);
    }
}
