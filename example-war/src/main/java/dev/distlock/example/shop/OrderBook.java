package dev.distlock.example.shop;

import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * Placing an order the naive way: read the stock, check it, write it back. Correct only while no
 * one else runs it for the same SKU at the same time, which is what {@link LockedOrders} ensures
 * across every server. Runs in its caller's transaction.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.MANDATORY)
public class OrderBook {

    @PersistenceContext(unitName = "shop")
    EntityManager entityManager;

    private final IdGenerator orderIds;

    @Inject
    OrderBook(@GeneratedId("order") IdGenerator orderIds) {
        this.orderIds = orderIds;
    }

    /** For proxies only. */
    protected OrderBook() {
        this.orderIds = null;
    }

    public Order place(String sku, int quantity) {
        StockItem item = entityManager.find(StockItem.class, sku);
        if (item == null) {
            throw ShopException.notForSale(sku);
        }
        int left = item.stock();
        if (left < quantity) {
            throw ShopException.outOfStock(sku, quantity, left);
        }
        item.setStock(left - quantity);
        PurchaseOrder order = new PurchaseOrder(orderIds.nextId(), sku, quantity, OffsetDateTime.now(ZoneOffset.UTC));
        entityManager.persist(order);
        return order.view();
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public Optional<Order> find(long id) {
        return Optional.ofNullable(entityManager.find(PurchaseOrder.class, id)).map(PurchaseOrder::view);
    }
}
