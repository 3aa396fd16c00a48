package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import dev.distlock.transactions.Narayana;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.Transactional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semantics 6: when a JTA transaction is active as a locked method is entered, the lock is kept
 * until the transaction completes, and the transaction reenters its own locks. The transaction
 * manager is Narayana, begun and ended here as a bean-managed transaction would be; Redis is real.
 * Every shape of nesting, on the same real transaction manager: {@code dev.distlock.transactions.TransactionMatrixTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionDeferralThroughBeansTest {

    /** Released asynchronously after completion: allow Redis a moment on two shared cores. */
    private static final Duration RELEASE_SLACK = Duration.ofSeconds(5);

    @ApplicationScoped
    public static class Orders {
        @Inject
        Ledger ledger;

        @Locked("order:{id}")
        public <T> T place(String id, Callable<T> body) throws Exception {
            return body.call();
        }

        /** waitTime 0: must not wait for a lock its own caller holds. */
        @Locked(value = "order:{id}", waitTime = 0)
        public <T> T amend(String id, Callable<T> body) throws Exception {
            return body.call();
        }

        /** The documented usage: the lock outside, the transaction inside, another locked bean within. */
        @Locked("order:{id}")
        @Transactional
        public <T> T placeAndBook(String id, Callable<T> body) throws Exception {
            return ledger.book(id, body);
        }
    }

    @ApplicationScoped
    public static class Ledger {
        @Locked(value = "order:{id}", waitTime = 0)
        public <T> T book(String id, Callable<T> body) throws Exception {
            return body.call();
        }
    }

    private DistlockWeld weld;
    private Orders orders;
    private String prefix;
    private final TransactionManager transactions = Narayana.transactionManager();

    @BeforeAll
    void start() {
        prefix = TestRedis.uniquePrefix("deferral");
        weld = Narayana.start(Map.of("distlock.key-prefix", prefix), Orders.class, Ledger.class);
        orders = weld.bean(Orders.class);
    }

    @AfterAll
    void stop() {
        weld.close();
    }

    @AfterEach
    void endAnyTransaction() throws Exception {
        if (transactions.getTransaction() != null) {
            transactions.rollback();
        }
    }

    @Test
    void lockTakenInATransactionIsHeldUntilItCommits() throws Exception {
        String key = lockKey("order:commit");
        transactions.begin();
        orders.place("commit", () -> null);
        assertTrue(Probe.isLocked(key), "the method returned, the transaction is still active");

        assertEquals(Status.STATUS_COMMITTED, commit());
        assertReleased(key);
    }

    /** The lock vanished from Redis before the commit: the work done under it must not commit. */
    @Test
    void transactionWhoseLockWasLostRollsBackInsteadOfCommitting() throws Exception {
        String key = lockKey("order:lost");
        transactions.begin();
        orders.place("lost", () -> null);
        Probe.delete(key);

        assertEquals(Status.STATUS_ROLLEDBACK, commit());
    }

    @Test
    void transactionWhoseLockIsHeldCommits() throws Exception {
        transactions.begin();
        orders.place("kept", () -> null);
        assertEquals(Status.STATUS_COMMITTED, commit());
    }

    @Test
    void lockTakenInATransactionIsReleasedWhenItRollsBack() throws Exception {
        String key = lockKey("order:rollback");
        transactions.begin();
        orders.place("rollback", () -> null);
        assertTrue(Probe.isLocked(key));

        transactions.rollback();
        assertReleased(key);
    }

    @Test
    void secondCallInTheSameTransactionReentersWithoutWaiting() throws Exception {
        String key = lockKey("order:twice");
        transactions.begin();
        orders.place("twice", () -> null);
        assertEquals("amended", orders.amend("twice", () -> "amended"), "waitTime 0, and no LockTimeoutException");
        assertTrue(Probe.isLocked(key));

        assertEquals(Status.STATUS_COMMITTED, commit());
        assertReleased(key);
    }

    @Test
    void withoutATransactionTheLockIsReleasedOnReturn() throws Exception {
        String key = lockKey("order:plain");
        assertEquals(Status.STATUS_NO_TRANSACTION, transactions.getStatus());
        assertTrue(orders.place("plain", () -> Probe.isLocked(key)));
        assertFalse(Probe.isLocked(key), "released synchronously, before the call returned");
    }

    @Test
    void nestedLockedCallInsideATransactionBegunUnderTheLockReenters() throws Exception {
        String key = lockKey("order:nested");
        assertTrue(orders.placeAndBook("nested", () -> Probe.isLocked(key)));
        assertReleased(key);
    }

    /** Commits the thread's transaction; @return how it ended */
    private int commit() throws Exception {
        try {
            transactions.commit();
            return Status.STATUS_COMMITTED;
        } catch (RollbackException rolledBack) {
            return Status.STATUS_ROLLEDBACK;
        }
    }

    private void assertReleased(String key) throws InterruptedException {
        long deadline = System.nanoTime() + RELEASE_SLACK.toNanos();
        while (Probe.isLocked(key) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertFalse(Probe.isLocked(key), "released after the transaction completed");
    }

    private String lockKey(String key) {
        return prefix + ":lock:" + key;
    }
}
