package dev.distlock.example.shop;

import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * Sets a SKU's stock under the same lock as {@link LockedOrders#place}, so a restock never
 * overwrites an order that is being placed, on this server or another.
 */
@ApplicationScoped
public class StockLedger {

    @PersistenceContext(unitName = "shop")
    EntityManager entityManager;

    @Locked(value = "stock:{sku}", waitTime = 30_000)
    @Transactional
    public StockLevel set(String sku, int stock, String name) {
        StockItem item = entityManager.find(StockItem.class, sku);
        if (item == null) {
            item = new StockItem(sku, name == null ? sku : name, stock);
            entityManager.persist(item);
        } else {
            item.setStock(stock);
            if (name != null) {
                item.setName(name);
            }
        }
        return item.view();
    }
}
