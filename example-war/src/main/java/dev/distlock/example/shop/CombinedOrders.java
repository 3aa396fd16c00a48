package dev.distlock.example.shop;

import dev.distlock.Batch;
import dev.distlock.Combined;
import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/**
 * {@link LockedOrders} with the buyers of a SKU waiting in this server served together: when the
 * SKU's lock comes, one transaction reads the stock once, answers each waiting order in arrival
 * order (placed, or sold out), writes the stock once, fenced with the lock's token, inserts every
 * placed order and commits once ({@link OrderBook#placeAll}). A hot SKU then pays its database
 * round trips once per batch instead of once per order. If the batch fails (the database, a lock
 * lost before the commit), every buyer in it gets the failure and nothing of it is committed.
 */
@ApplicationScoped
@Typed(CombinedOrders.class)
public class CombinedOrders implements OrderDesk {

    private final OrderBook book;

    @Inject
    CombinedOrders(OrderBook book) {
        this.book = book;
    }

    /** For proxies only. */
    protected CombinedOrders() {
        this.book = null;
    }

    /** One order: alone when the caller is in a transaction of its own, otherwise in a batch ({@link #placeAll}). */
    @Override
    @Locked(value = "stock:{order.sku}", waitTime = 30_000, fenced = true)
    @Combined(value = "placeAll", max = 64)
    @Transactional
    public Order place(NumberedOrder order) {
        return book.place(order);
    }

    /** The orders of one SKU waiting in this server, in one transaction. */
    @Transactional
    public void placeAll(Batch<Order> batch) {
        book.placeAll(batch);
    }
}
