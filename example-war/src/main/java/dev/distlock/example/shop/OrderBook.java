package dev.distlock.example.shop;

import dev.distlock.id.DailySerials;
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
import java.util.List;
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
    private final DailySerials orderNumbers;
    private final LockContext lock;

    @Inject
    OrderBook(@GeneratedId("order") IdGenerator orderIds, @GeneratedId("order-number") DailySerials orderNumbers, LockContext lock) {
        this.orderIds = orderIds;
        this.orderNumbers = orderNumbers;
        this.lock = lock;
    }

    /** For proxies only. */
    protected OrderBook() {
        this.orderIds = null;
        this.orderNumbers = null;
        this.lock = null;
    }

    /** Places an order from the SKU's one stock, under the lock {@code stock:{sku}} (or, unlocked, under none). */
    public Order place(String sku, int quantity) {
        OptionalLong token = lock.fencingToken();
        StockItem item = inStock(sku, quantity);
        if (token.isPresent()) {
            writeStockFenced(entityManager, item, item.stock() - quantity, token.getAsLong());
        } else {
            item.setStock(item.stock() - quantity); // the unlocked variant: nothing to fence with
        }
        return record(sku, quantity);
    }

    /**
     * As {@link #place(String, int)}, in a transaction of its own, for the benchmark's raw Redisson
     * variant: its {@code RFencedLock} tokens count from 1, not in the token space of the
     * {@code fence} column (distlock's, which start from Redis's clock), so its write is fenced with
     * the fence it read: a compare-and-set that leaves the fence as it is.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Order placeUnderOwnLock(String sku, int quantity) {
        StockItem item = inStock(sku, quantity);
        // The row's own fence as the token: the same UPDATE, refused if anyone wrote since the read.
        writeStockFenced(entityManager, item, item.stock() - quantity, item.fence());
        return record(sku, quantity);
    }

    /**
     * @throws ShopException 422 when the SKU does not exist, 409 when it has less than {@code quantity}
     */
    private StockItem inStock(String sku, int quantity) {
        StockItem item = entityManager.find(StockItem.class, sku);
        if (item == null) {
            throw ShopException.notForSale(sku);
        }
        if (item.stock() < quantity) {
            throw ShopException.outOfStock(sku, quantity, item.stock());
        }
        return item;
    }

    /**
     * Takes {@code quantity} from one stripe of a striped SKU if that stripe holds that many, under
     * the stripe's lock {@code stock:{sku}:{stripe}}.
     *
     * @return the order, or empty when the stripe holds too little (or no longer exists)
     */
    public Optional<Order> placeIn(String sku, int stripe, int quantity) {
        StockStripe part = entityManager.find(StockStripe.class, new StockStripe.Key(sku, stripe));
        if (part == null || part.stock() < quantity) {
            return Optional.empty();
        }
        writeStripe(part, part.stock() - quantity);
        return Optional.of(record(sku, quantity));
    }

    /**
     * Takes {@code quantity} from as many stripes as it needs, lowest first, under the locks of
     * stripes {@code 0..stripes-1}: for an order no single stripe can serve. Stripes from
     * {@code stripes} on (a restock added them after the caller counted) are not touched: their
     * locks are not held.
     *
     * @throws ShopException 409 when all the stripes together hold less than {@code quantity}
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Order placeAcross(String sku, int stripes, int quantity) {
        List<StockStripe> parts = entityManager.createQuery(
                        "select s from StockStripe s where s.sku = :sku and s.stripe < :stripes order by s.stripe", StockStripe.class)
                .setParameter("sku", sku).setParameter("stripes", stripes).getResultList();
        int left = parts.stream().mapToInt(StockStripe::stock).sum();
        if (left < quantity) {
            throw ShopException.outOfStock(sku, quantity, left);
        }
        int wanted = quantity;
        for (StockStripe part : parts) {
            int taken = Math.min(wanted, part.stock());
            if (taken > 0) {
                writeStripe(part, part.stock() - taken);
                wanted -= taken;
            }
        }
        return record(sku, quantity);
    }

    /** Writes a stripe fenced with its own lock's token when that lock is held, plainly in the unlocked variant. */
    private void writeStripe(StockStripe part, int stock) {
        OptionalLong token = lock.fencingToken(StockKeys.stripe(part.sku(), part.stripe()));
        if (token.isPresent()) {
            writeStripeFenced(entityManager, part, stock, token.getAsLong());
        } else {
            part.setStock(stock);
        }
    }

    /**
     * A new order of {@code quantity} units of {@code sku}, with an id and a number of its own; the
     * stock is the caller's business. Numbered only once the stock is known to suffice, so that
     * refused orders leave no gaps (a rolled-back one still does).
     */
    Order record(String sku, int quantity) {
        PurchaseOrder order = new PurchaseOrder(orderIds.nextId(), orderNumbers.next().text(), sku, quantity,
                OffsetDateTime.now(ZoneOffset.UTC));
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

    /** {@link #writeStockFenced} for one stripe of a striped SKU, fenced with that stripe's token. */
    static void writeStripeFenced(EntityManager entityManager, StockStripe part, int stock, long token) {
        int updated = entityManager.createQuery("UPDATE StockStripe s SET s.stock = :stock, s.fence = :token "
                        + "WHERE s.sku = :sku AND s.stripe = :stripe AND s.fence = :seen AND s.fence <= :token")
                .setParameter("stock", stock).setParameter("token", token).setParameter("sku", part.sku())
                .setParameter("stripe", part.stripe()).setParameter("seen", part.fence())
                .executeUpdate();
        if (updated != 1) {
            throw ShopException.staleLock(part.sku());
        }
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public Optional<Order> find(long id) {
        return Optional.ofNullable(entityManager.find(PurchaseOrder.class, id)).map(PurchaseOrder::view);
    }
}
