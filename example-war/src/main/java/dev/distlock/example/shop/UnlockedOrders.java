package dev.distlock.example.shop;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.util.Optional;

/**
 * {@link LockedOrders} without the lock, to show what distlock prevents: used only when
 * {@code shop.locking=false}, which the end-to-end tests set to prove they can see an oversell.
 * Never switch it off in a real shop.
 */
@ApplicationScoped
@Typed(UnlockedOrders.class)
public class UnlockedOrders implements OrderDesk {

    private final OrderBook book;

    @Inject
    UnlockedOrders(OrderBook book) {
        this.book = book;
    }

    /** For proxies only. */
    protected UnlockedOrders() {
        this.book = null;
    }

    @Override
    @Transactional
    public Order place(String sku, int quantity) {
        return book.place(sku, quantity);
    }

    @Override
    @Transactional
    public Optional<Order> placeIn(String sku, int stripe, int quantity) {
        return book.placeIn(sku, stripe, quantity);
    }

    @Override
    public Order placeAcross(String sku, int stripes, int quantity) {
        return book.placeAcross(sku, stripes, quantity);
    }

    @Override
    public boolean sellsStripes() {
        return true;
    }
}
