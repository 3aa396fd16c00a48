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
    public Order place(NumberedOrder order) {
        return book.place(order);
    }

    @Override
    @Transactional
    public Optional<Order> placeIn(NumberedOrder order, int stripe) {
        return book.placeIn(order, stripe);
    }

    @Override
    public Order placeAcross(NumberedOrder order, int stripes) {
        return book.placeAcross(order, stripes);
    }

    @Override
    public boolean sellsStripes() {
        return true;
    }
}
