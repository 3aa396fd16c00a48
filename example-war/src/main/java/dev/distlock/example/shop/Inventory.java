package dev.distlock.example.shop;

import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * A SKU's stock: its row's, plus its stripes' for a striped SKU (whose row then holds 0). The
     * stripes are summed by one query, so the sum is their stock at one moment.
     */
    @ReadLocked("inventory:{sku}")
    @Transactional
    public Optional<StockLevel> level(String sku) {
        return Optional.ofNullable(entityManager.find(StockItem.class, sku)).map(item -> {
            long striped = entityManager.createQuery("select coalesce(sum(s.stock), 0) from StockStripe s where s.sku = :sku", Long.class)
                    .setParameter("sku", sku).getSingleResult();
            StockLevel level = item.view();
            return new StockLevel(level.sku(), level.name(), level.stock() + (int) striped);
        });
    }

    @Transactional
    public List<StockLevel> all() {
        Map<String, Long> striped = new HashMap<>();
        entityManager.createQuery("select s.sku, sum(s.stock) from StockStripe s group by s.sku", Object[].class)
                .getResultStream().forEach(row -> striped.put((String) row[0], ((Number) row[1]).longValue()));
        return entityManager.createQuery("select s from StockItem s order by s.sku", StockItem.class)
                .setMaxResults(1_000)
                .getResultStream().map(StockItem::view)
                .map(level -> new StockLevel(level.sku(), level.name(), level.stock() + striped.getOrDefault(level.sku(), 0L).intValue()))
                .toList();
    }

    /**
     * Sets the stock of a SKU, creating it if it does not exist.
     *
     * @param stripes in how many stripes to keep it from now on; {@code null}: as it is
     */
    @WriteLocked("inventory:{sku}")
    public StockChange restock(String sku, int stock, String name, Integer stripes) {
        return ledger.set(sku, stock, name, stripes);
    }
}
