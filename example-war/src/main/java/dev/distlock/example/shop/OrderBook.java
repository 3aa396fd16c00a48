package dev.distlock.example.shop;

import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import jakarta.enterprise.context.ApplicationScoped;
import dev.distlock.LockContext;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.OptionalLong;

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
    private final LockContext lock;

    @Inject
    OrderBook(@GeneratedId("order") IdGenerator orderIds, LockContext lock) {
        this.orderIds = orderIds;
        this.lock = lock;
    }

    /** For proxies only. */
    protected OrderBook() {
        this.orderIds = null;
        this.lock = null;
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
        OptionalLong token = lock.fencingToken();
        if (token.isPresent()) {
            writeStockFenced(entityManager, item, left - quantity, token.getAsLong());
        } else {
            item.setStock(left - quantity); // the unlocked variant: nothing to fence with
        }
        PurchaseOrder order = new PurchaseOrder(orderIds.nextId(), sku, quantity, OffsetDateTime.now(ZoneOffset.UTC));
        entityManager.persist(order);
        return order.view();
    }

    /**
     * Writes the stock read in {@code item} only if nobody wrote it since it was read (the row's
     * fence is still the one read) and no later lock holder did (the fence is not above this
     * holder's token). While the lock holds, both are always true. A refused write means this
     * server's lock was lost while it worked (a long pause, Redis restarted empty): the exception
     * rolls the transaction back instead of overselling.
     */
    static void writeStockFenced(EntityManager entityManager, StockItem item, int stock, long token) {
        int updated = entityManager.createQuery("UPDATE StockItem s SET s.stock = :stock, s.fence = :token "
                        + "WHERE s.sku = :sku AND s.fence = :seen AND s.fence <= :token")
                .setParameter("stock", stock).setParameter("token", token).setParameter("sku", item.sku())
                .setParameter("seen", item.fence())
                .executeUpdate();
        if (updated != 1) {
            throw ShopException.staleLock(item.sku());
        }
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public Optional<Order> find(long id) {
        return Optional.ofNullable(entityManager.find(PurchaseOrder.class, id)).map(PurchaseOrder::view);
    }
}
