package dev.distlock.example.shop;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * One SKU and how many units are left. Deliberately no {@code @Version} and no
 * {@code SELECT ... FOR UPDATE}: the read-check-write in {@link OrderBook} is protected by
 * distlock alone, so that switching the lock off shows the oversell. Locked writes also carry
 * the lock's fencing token in {@code fence}, so that a server whose lock was lost (a long pause)
 * cannot write over a newer holder's stock.
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

    /** The fencing token of the last locked write: a write with a smaller one is refused. */
    @Column(nullable = false)
    private long fence;

    protected StockItem() {
        // for JPA
    }

    public StockItem(String sku, String name, int stock, long fence) {
        this.sku = sku;
        this.name = name;
        this.stock = stock;
        this.fence = fence;
    }

    public String sku() {
        return sku;
    }

    public int stock() {
        return stock;
    }

    public long fence() {
        return fence;
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
