package dev.distlock.example.shop;

/** Where the REST resource places orders: {@link LockedOrders}, or for the oversell demo {@link UnlockedOrders}. */
public interface OrderDesk {

    /**
     * @throws ShopException 409 when the stock is insufficient, 422 when the SKU does not exist
     */
    Order place(String sku, int quantity);
}
