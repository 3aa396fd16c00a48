package dev.distlock.example.shop;

import dev.distlock.LockContext;
import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
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

    @Inject
    LockContext lock;

    @Locked(value = "stock:{sku}", waitTime = 30_000, fenced = true)
    @Transactional
    public StockChange set(String sku, int stock, String name) {
        long token = lock.fencingToken().orElseThrow();
        StockItem item = entityManager.find(StockItem.class, sku);
        if (item == null) {
            item = new StockItem(sku, name == null ? sku : name, stock, token);
            entityManager.persist(item);
            return new StockChange(sku, item.view().name(), stock, 0);
        }
        int previous = item.stock();
        if (name != null) {
            item.setName(name);
        }
        OrderBook.writeStockFenced(entityManager, item, stock, token);
        return new StockChange(sku, name != null ? name : item.view().name(), stock, previous);
    }
}
