package dev.distlock.example.shop;

import java.util.Optional;

/**
 * Where orders are placed: {@link LockedOrders}, for the oversell demo {@link UnlockedOrders}, and
 * for the benchmark only {@link RedissonOrders} and {@link RowLockOrders}. {@link Checkout} decides
 * which of these methods an order goes through.
 */
public interface OrderDesk {

    /**
     * An order from an unstriped SKU's stock.
     *
     * @throws ShopException 409 when the stock is insufficient, 422 when the SKU does not exist
     */
    Order place(NumberedOrder order);

    /**
     * An order from one stripe of a striped SKU.
     *
     * @return empty when that stripe holds less than the order's quantity
     */
    default Optional<Order> placeIn(NumberedOrder order, int stripe) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " sells no striped stock");
    }

    /**
     * An order from stripes {@code 0..stripes-1} of a striped SKU taken together, for an order that
     * no single stripe can serve.
     *
     * @throws ShopException 409 when they hold less than the order's quantity together
     */
    default Order placeAcross(NumberedOrder order, int stripes) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " sells no striped stock");
    }

    /** Whether {@link #placeIn} and {@link #placeAcross} work here. */
    default boolean sellsStripes() {
        return false;
    }
}
