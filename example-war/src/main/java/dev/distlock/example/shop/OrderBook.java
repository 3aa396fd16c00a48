package dev.distlock.example.shop;

import jakarta.enterprise.context.ApplicationScoped;
import dev.distlock.Batch;
import dev.distlock.LockContext;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
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

    private final LockContext lock;

    @Inject
    OrderBook(LockContext lock) {
        this.lock = lock;
    }

    /** For proxies only. */
    protected OrderBook() {
        this.lock = null;
    }

    /** Places an order from the SKU's one stock, under the lock {@code stock:{sku}} (or, unlocked, under none). */
    public Order place(NumberedOrder order) {
        OptionalLong token = lock.fencingToken();
        StockItem item = inStock(order.sku(), order.quantity());
        if (token.isPresent()) {
            writeStockFenced(entityManager, item, item.stock() - order.quantity(), token.getAsLong());
        } else {
            item.setStock(item.stock() - order.quantity()); // the unlocked variant: nothing to fence with
        }
        return record(order);
    }

    /**
     * The orders of one SKU waiting together for its lock ({@link CombinedOrders}): the stock read
     * once, each order placed or refused (sold out) in arrival order, the stock written once,
     * fenced with the lock's token, every placed order inserted; all in the caller's transaction.
     */
    public void placeAll(Batch<Order> batch) {
        String sku = batch.iterator().next().<NumberedOrder>argument(0).sku();
        StockItem item = entityManager.find(StockItem.class, sku);
        int left = item == null ? 0 : item.stock();
        for (Batch.Call<Order> call : batch) {
            NumberedOrder order = call.argument(0);
            if (item == null) {
                call.fail(ShopException.notForSale(sku));
            } else if (order.quantity() > left) {
                call.fail(ShopException.outOfStock(sku, order.quantity(), left));
            } else {
                left -= order.quantity();
                call.complete(record(order));
            }
        }
        if (item != null && left != item.stock()) {
            writeStockFenced(entityManager, item, left, lock.fencingToken().orElseThrow(() ->
                    new IllegalStateException("placeAll runs under the fenced lock of " + sku)));
        }
    }

    /**
     * As {@link #place(String, int)}, in a transaction of its own, for the benchmark's raw Redisson
     * variant: its {@code RFencedLock} tokens count from 1, not in the token space of the
     * {@code fence} column (distlock's, which start from Redis's clock), so its write is fenced with
     * the fence it read: a compare-and-set that leaves the fence as it is.
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Order placeUnderOwnLock(NumberedOrder order) {
        StockItem item = inStock(order.sku(), order.quantity());
        // The row's own fence as the token: the same UPDATE, refused if anyone wrote since the read.
        writeStockFenced(entityManager, item, item.stock() - order.quantity(), item.fence());
        return record(order);
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
     * Takes the order's quantity from one stripe of a striped SKU if that stripe holds that many,
     * under the stripe's lock {@code stock:{sku}:{stripe}}.
     *
     * @return the order, or empty when the stripe holds too little (or no longer exists)
     */
    public Optional<Order> placeIn(NumberedOrder order, int stripe) {
        StockStripe part = entityManager.find(StockStripe.class, new StockStripe.Key(order.sku(), stripe));
        if (part == null || part.stock() < order.quantity()) {
            return Optional.empty();
        }
        writeStripe(part, part.stock() - order.quantity());
        return Optional.of(record(order));
    }

    /**
     * Takes the order's quantity from as many stripes as it needs, lowest first, under the locks
     * of stripes {@code 0..stripes-1}: for an order no single stripe can serve. Stripes from
     * {@code stripes} on (a restock added them after the caller counted) are not touched: their
     * locks are not held.
     *
     * @throws ShopException 409 when all the stripes together hold less than the order's quantity
     */
    @Transactional(Transactional.TxType.REQUIRED)
    public Order placeAcross(NumberedOrder order, int stripes) {
        List<StockStripe> parts = entityManager.createQuery(
                        "select s from StockStripe s where s.sku = :sku and s.stripe < :stripes order by s.stripe", StockStripe.class)
                .setParameter("sku", order.sku()).setParameter("stripes", stripes).getResultList();
        int left = parts.stream().mapToInt(StockStripe::stock).sum();
        if (left < order.quantity()) {
            throw ShopException.outOfStock(order.sku(), order.quantity(), left);
        }
        int wanted = order.quantity();
        for (StockStripe part : parts) {
            int taken = Math.min(wanted, part.stock());
            if (taken > 0) {
                writeStripe(part, part.stock() - taken);
                wanted -= taken;
            }
        }
        return record(order);
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

    /** Stores the order; the stock is the caller's business. */
    Order record(NumberedOrder order) {
        PurchaseOrder placed = new PurchaseOrder(order.id(), order.number(), order.sku(), order.quantity(),
                OffsetDateTime.now(ZoneOffset.UTC));
        entityManager.persist(placed);
        return placed.view();
    }

    /**
     * Writes the stock read in {@code item} only if nobody wrote it since it was read (the row's
     * fence is still the one read) and no later lock holder did (the fence is not above this
     * holder's token). While the lock holds, both are always true. A refused write means this
     * server's lock was lost while it worked (a long pause, Redis restarted empty): the exception
     * rolls the transaction back instead of overselling.
     */
    static void writeStockFenced(EntityManager entityManager, StockItem item, int stock, long token) {
        int updated = waitingForTheRow(() -> entityManager.createQuery("UPDATE StockItem s SET s.stock = :stock, s.fence = :token "
                        + "WHERE s.sku = :sku AND s.fence = :seen AND s.fence <= :token")
                .setParameter("stock", stock).setParameter("token", token).setParameter("sku", item.sku())
                .setParameter("seen", item.fence())
                .executeUpdate(), item.sku());
        if (updated != 1) {
            throw ShopException.staleLock(item.sku());
        }
    }

    /** {@link #writeStockFenced} for one stripe of a striped SKU, fenced with that stripe's token. */
    static void writeStripeFenced(EntityManager entityManager, StockStripe part, int stock, long token) {
        int updated = waitingForTheRow(() -> entityManager.createQuery("UPDATE StockStripe s SET s.stock = :stock, s.fence = :token "
                        + "WHERE s.sku = :sku AND s.stripe = :stripe AND s.fence = :seen AND s.fence <= :token")
                .setParameter("stock", stock).setParameter("token", token).setParameter("sku", part.sku())
                .setParameter("stripe", part.stripe()).setParameter("seen", part.fence())
                .executeUpdate(), part.sku());
        if (updated != 1) {
            throw ShopException.staleLock(part.sku());
        }
    }

    /**
     * Runs a fenced write; a wait for the row that the database gave up on is answered as a lost lock
     * (503, nothing written): see {@link RowLockTimeouts}.
     */
    private static int waitingForTheRow(java.util.function.IntSupplier update, String sku) {
        try {
            return update.getAsInt();
        } catch (PersistenceException e) {
            if (RowLockTimeouts.causedBy(e)) {
                throw ShopException.rowHeldElsewhere(sku, e);
            }
            throw e;
        }
    }

    @Transactional(Transactional.TxType.REQUIRED)
    public Optional<Order> find(long id) {
        return Optional.ofNullable(entityManager.find(PurchaseOrder.class, id)).map(PurchaseOrder::view);
    }
}
