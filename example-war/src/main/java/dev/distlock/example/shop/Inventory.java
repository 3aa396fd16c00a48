package dev.distlock.example.shop;

import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

import java.util.List;
import java.util.Optional;

/**
 * Stock levels. Readers of a SKU share its read lock; a restock takes the write lock, so no one
 * reads while it runs, and inside it the SKU's order lock, so no order is placed meanwhile.
 * Orders do not take the read-write lock: they serialize on {@code stock:{sku}} alone.
 */
@ApplicationScoped
public class Inventory {

    @PersistenceContext(unitName = "shop")
    EntityManager entityManager;

    private final StockLedger ledger;

    @Inject
    Inventory(StockLedger ledger) {
        this.ledger = ledger;
    }

    /** For proxies only. */
    protected Inventory() {
        this.ledger = null;
    }

    @ReadLocked("inventory:{sku}")
    @Transactional
    public Optional<StockLevel> level(String sku) {
        return Optional.ofNullable(entityManager.find(StockItem.class, sku)).map(StockItem::view);
    }

    @Transactional
    public List<StockLevel> all() {
        return entityManager.createQuery("select s from StockItem s order by s.sku", StockItem.class)
                .setMaxResults(1_000)
                .getResultStream().map(StockItem::view).toList();
    }

    /** Sets the stock of a SKU, creating it if it does not exist. */
    @WriteLocked("inventory:{sku}")
    public StockChange restock(String sku, int stock, String name) {
        return ledger.set(sku, stock, name);
    }
}
