package dev.distlock.runtimes;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/** A transaction that takes a lock inside it: the lock must outlive the locked call until the commit. */
@ApplicationScoped
public class Checkout {

    @Inject
    Stock stock;

    /** @return whether the key was still held after the locked call returned, inside the transaction */
    @Transactional
    public boolean keyHeldUntilCommit(String sku) {
        stock.touch(sku);
        return stock.keyHeld(sku);
    }

    /** The same without a transaction: the key is released when the locked call returns. */
    public boolean keyHeldWithoutTransaction(String sku) {
        stock.touch(sku);
        return stock.keyHeld(sku);
    }
}
