package dev.distlock.runtimes.shapes;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.util.concurrent.Callable;

/** The caller's transactions of shapes 2 and 3. */
@ApplicationScoped
public class Reservations {

    @Inject
    Reserver reserver;
    @Inject
    Regions regions;
    @Inject
    Reservations self;

    /** Shape 2: the lock taken in this transaction must stay until it commits, after the audit record's committed. */
    @Transactional
    public void reserveThenPay(String key) {
        reserver.reserve(key);
        regions.think();
    }

    @Transactional
    public void reserveThenPayUnlocked(String key) {
        reserver.reserveUnlocked(key);
        regions.think();
    }

    /** Shape 3: a locked call failed and doomed the transaction; the catch block's locked call reenters. */
    @Transactional
    public String failThenRecord(String key) {
        try {
            reserver.reserveFailing(key);
        } catch (IllegalStateException expected) {
            // the transaction is marked rollback-only now
        }
        return reserver.touch(key);
    }

    /** Shape 3: a chain begun under NOT_SUPPORTED in the transaction that holds the key reenters it. */
    @Transactional
    public String takeThenSuspend(String key) throws Exception {
        reserver.take(key);
        return self.notSupported(() -> reserver.touch(key));
    }

    /** Shape 3: a chain begun under REQUIRES_NEW in the transaction that holds the key reenters it. */
    @Transactional
    public String takeThenNest(String key) throws Exception {
        reserver.take(key);
        return self.requiresNew(() -> reserver.touch(key));
    }

    @Transactional(Transactional.TxType.NOT_SUPPORTED)
    public <T> T notSupported(Callable<T> work) throws Exception {
        return work.call();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public <T> T requiresNew(Callable<T> work) throws Exception {
        return work.call();
    }
}
