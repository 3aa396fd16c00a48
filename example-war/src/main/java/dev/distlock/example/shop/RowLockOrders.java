package dev.distlock.example.shop;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;

/**
 * For the shop benchmark only ({@code shop.bench.desk=row-lock}): what a Jakarta EE developer
 * writes without distlock — the SKU's row read with {@code PESSIMISTIC_WRITE}
 * ({@code SELECT ... FOR UPDATE}), so the database makes the next buyer of the SKU wait until this
 * transaction ends. No Redis while the row is locked: the order's id and number were taken before
 * ({@link Checkout}). How long a buyer waits for the row is the database's setting (the benchmark
 * gives H2 the 30 s distlock's shop waits for its lock). Unstriped SKUs only.
 */
@ApplicationScoped
@Typed(RowLockOrders.class)
public class RowLockOrders implements OrderDesk {

    @PersistenceContext(unitName = "shop")
    EntityManager entityManager;

    /** For the benchmark's section events: the row lock is held until the transaction completes. */
    @Resource
    TransactionSynchronizationRegistry transactions;

    private final OrderBook book;

    @Inject
    RowLockOrders(OrderBook book) {
        this.book = book;
    }

    /** For proxies only. */
    protected RowLockOrders() {
        this.book = null;
    }

    @Override
    @Transactional
    public Order place(NumberedOrder order) {
        long started = System.nanoTime();
        StockItem item = entityManager.find(StockItem.class, order.sku(), LockModeType.PESSIMISTIC_WRITE);
        recordSectionUntilCompletion(order.sku(), started);
        if (item == null) {
            throw ShopException.notForSale(order.sku());
        }
        if (item.stock() < order.quantity()) {
            throw ShopException.outOfStock(order.sku(), order.quantity(), item.stock());
        }
        item.setStock(item.stock() - order.quantity());
        return book.record(order);
    }

    /** The row is locked from here until the transaction completes: that is the section the benchmark records. */
    private void recordSectionUntilCompletion(String sku, long transactionStarted) {
        BenchSection section = BenchSection.begin("row-lock", sku);
        if (section != null) {
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    // the row stays locked through the commit
                }

                @Override
                public void afterCompletion(int status) {
                    BenchSection.end(section, System.nanoTime() - transactionStarted);
                }
            });
        }
    }
}
