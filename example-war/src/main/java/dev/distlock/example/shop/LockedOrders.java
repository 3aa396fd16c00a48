package dev.distlock.example.shop;

import dev.distlock.DistributedLocks;
import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Duration;
import java.util.Optional;

/**
 * One order per SKU at a time, across every server that shares the Redis. distlock's interceptor
 * runs outside {@code @Transactional}, so the lock is taken before the transaction begins and
 * released only after it has committed: the next buyer of the SKU reads the committed stock.
 *
 * <p>The wait is long on purpose: in a flash sale hundreds of buyers queue for one SKU, and each
 * must get an answer (an order or "sold out"), not a timeout. Override it without recompiling with
 * {@code dev.distlock.example.shop.LockedOrders/place/Locked/waitTime=PT10S}.
 *
 * <p>Fenced: the stock write carries the lock's token ({@link OrderBook#writeStockFenced}), so even
 * a server that lost its lock mid-order cannot write over a newer holder's stock.
 */
@ApplicationScoped
@Typed(LockedOrders.class)
public class LockedOrders implements OrderDesk {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final OrderBook book;
    private final DistributedLocks locks;

    @Inject
    LockedOrders(OrderBook book, DistributedLocks locks) {
        this.book = book;
        this.locks = locks;
    }

    /** For proxies only. */
    protected LockedOrders() {
        this.book = null;
        this.locks = null;
    }

    @Override
    @Locked(value = "stock:{order.sku}", waitTime = 30_000, fenced = true)
    @Transactional
    public Order place(NumberedOrder order) {
        return book.place(order);
    }

    /** One stripe of a striped SKU: buyers of different stripes do not wait for each other. */
    @Override
    @Locked(value = "stock:{order.sku}:{stripe}", waitTime = 30_000, fenced = true)
    @Transactional
    public Optional<Order> placeIn(NumberedOrder order, int stripe) {
        return book.placeIn(order, stripe);
    }

    /**
     * Every stripe's lock at once (taken in sorted order, like a restock's, so the two cannot
     * deadlock), then a transaction that takes from several stripes.
     */
    @Override
    public Order placeAcross(NumberedOrder order, int stripes) {
        return locks.exclusive(StockKeys.stripes(order.sku(), stripes)).fenced().waitTime(WAIT)
                .get(() -> book.placeAcross(order, stripes));
    }

    @Override
    public boolean sellsStripes() {
        return true;
    }
}
