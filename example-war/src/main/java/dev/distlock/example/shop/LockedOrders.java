package dev.distlock.example.shop;

import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

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

    private final OrderBook book;

    @Inject
    LockedOrders(OrderBook book) {
        this.book = book;
    }

    /** For proxies only. */
    protected LockedOrders() {
        this.book = null;
    }

    @Override
    @Locked(value = "stock:{sku}", waitTime = 30_000, fenced = true)
    @Transactional
    public Order place(String sku, int quantity) {
        return book.place(sku, quantity);
    }
}
