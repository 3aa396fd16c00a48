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
            writeStockFenced(entityManager, sku, left - quantity, token.getAsLong());
        } else {
            item.setStock(left - quantity); // the unlocked variant: nothing to fence with
        }
        PurchaseOrder order = new PurchaseOrder(orderIds.nextId(), sku, quantity, OffsetDateTime.now(ZoneOffset.UTC));
        entityManager.persist(order);
        return order.view();
    }

    /**
     * Writes the stock only if no later lock holder has written it: the row's fence must not be
     * above this holder's token. A refused write means this server lost its lock while it worked;
     * the exception rolls the transaction back.
     */
    static void writeStockFenced(EntityManager entityManager, String sku, int stock, long token) {
        int updated = entityManager.createQuery(
                        "UPDATE StockItem s SET s.stock = :stock, s.fence = :token WHERE s.sku = :sku AND s.fence <= :token")
                .setParameter("stock", stock).setParameter("token", token).setParameter("sku", sku)
                .executeUpdate();
        if (updated != 1) {
            throw ShopException.staleLock(sku);
        }
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public Optional<Order> find(long id) {
        return Optional.ofNullable(entityManager.find(PurchaseOrder.class, id)).map(PurchaseOrder::view);
    }
}
