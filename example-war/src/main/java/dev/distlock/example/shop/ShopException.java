package dev.distlock.example.shop;

/** A request the shop refuses, with the HTTP status and the problem title to answer with. */
public class ShopException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String title;

    private ShopException(int status, String title, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
    }

    static ShopException invalid(String detail) {
        return new ShopException(400, "Invalid request", detail);
    }

    static ShopException unknownSku(String sku) {
        return new ShopException(404, "Unknown SKU", "there is no SKU '" + sku + "'");
    }

    /** An order for a SKU that does not exist: the request is well-formed, its content is not. */
    static ShopException notForSale(String sku) {
        return new ShopException(422, "Unknown SKU", "there is no SKU '" + sku + "' to order");
    }

    static ShopException unknownOrder(String id) {
        return new ShopException(404, "Unknown order", "there is no order " + id);
    }

    static ShopException outOfStock(String sku, int wanted, int left) {
        return new ShopException(409, "Insufficient stock", "SKU '" + sku + "' has " + left + " left, " + wanted + " wanted");
    }

    /** A locked write refused by its fencing token: this server's lock expired while it worked. */
    static ShopException staleLock(String sku) {
        return new ShopException(503, "Lock lost", "the lock on SKU '" + sku + "' was lost while the order was placed; "
                + "nothing was written, try again");
    }

    /**
     * The SKU's stock row stayed locked by another transaction for longer than the database waits:
     * the SKU's lock was not exclusive for a moment (see {@link RowLockTimeouts}); nothing was written.
     */
    static ShopException rowHeldElsewhere(String sku, Throwable cause) {
        ShopException e = new ShopException(503, "Lock lost", "the stock of SKU '" + sku + "' was being written by another "
                + "order when this one was placed; nothing was written, try again");
        e.initCause(cause);
        return e;
    }

    /** A forced release the lock's store refused: its holder is not fenced, and no reason was given. */
    static ShopException lockLeftHeld(String key, String why) {
        return new ShopException(409, "Lock left held", "the lock '" + key + "' was not ended: " + why
                + "; give a reason (?reason=...) to end it anyway");
    }

    /** The benchmark's raw-Redisson variant waited its whole wait time for the SKU's lock. */
    static ShopException busy(String sku) {
        return new ShopException(503, "Busy", "the lock on SKU '" + sku + "' was not free in time; try again");
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }
}
