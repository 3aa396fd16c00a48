package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeldTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import org.jboss.weld.junit5.auto.AddBeanClasses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semantics 6: when a JTA transaction is active as a locked method is entered, the lock is kept
 * until the transaction completes, and the transaction reenters its own locks. The transaction
 * manager is {@link FakeTransactionRegistry}; Redis is real. The engine's side of the same rule,
 * without beans, is {@code dev.distlock.internal.core.TransactionDeferralTest}.
 */
@DistlockWeldTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@AddBeanClasses({TransactionDeferralThroughBeansTest.Orders.class, TransactionDeferralThroughBeansTest.Ledger.class,
        FakeTransactionRegistry.class, FakeTransactional.Interceptor.class})
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
        @FakeTransactional
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

    @Inject
    Orders orders;
    @Inject
    FakeTransactionRegistry registry;
    @Inject
    DistlockSetup distlock;

    @AfterEach
    void endAnyTransaction() {
        registry.reset();
    }

    @Test
    void lockTakenInATransactionIsHeldUntilItCommits() throws Exception {
        String key = lockKey("order:commit");
        registry.begin();
        orders.place("commit", () -> null);
        assertTrue(Probe.isLocked(key), "the method returned, the transaction is still active");

        registry.synchronizations().forEach(s -> s.afterCompletion(Status.STATUS_COMMITTED));
        assertReleased(key);
    }

    /** The lock vanished from Redis before the commit: the work done under it must not commit. */
    @Test
    void transactionWhoseLockWasLostRollsBackInsteadOfCommitting() throws Exception {
        String key = lockKey("order:lost");
        registry.begin();
        orders.place("lost", () -> null);
        Probe.delete(key);

        assertEquals(Status.STATUS_ROLLEDBACK, registry.complete(Status.STATUS_COMMITTED));
    }

    @Test
    void transactionWhoseLockIsHeldCommits() throws Exception {
        registry.begin();
        orders.place("kept", () -> null);
        assertEquals(Status.STATUS_COMMITTED, registry.complete(Status.STATUS_COMMITTED));
    }

    @Test
    void lockTakenInATransactionIsReleasedWhenItRollsBack() throws Exception {
        String key = lockKey("order:rollback");
        registry.begin();
        orders.place("rollback", () -> null);
        assertTrue(Probe.isLocked(key));

        registry.complete(Status.STATUS_ROLLEDBACK);
        assertReleased(key);
    }

    @Test
    void secondCallInTheSameTransactionReentersWithoutWaiting() throws Exception {
        String key = lockKey("order:twice");
        registry.begin();
        orders.place("twice", () -> null);
        assertEquals("amended", orders.amend("twice", () -> "amended"), "waitTime 0, and no LockTimeoutException");
        assertTrue(Probe.isLocked(key));

        registry.complete(Status.STATUS_COMMITTED);
        assertReleased(key);
    }

    @Test
    void withoutATransactionTheLockIsReleasedOnReturn() throws Exception {
        String key = lockKey("order:plain");
        assertEquals(Status.STATUS_NO_TRANSACTION, registry.getTransactionStatus());
        assertTrue(orders.place("plain", () -> Probe.isLocked(key)));
        assertFalse(Probe.isLocked(key), "released synchronously, before the call returned");
    }

    @Test
    void nestedLockedCallInsideATransactionBegunUnderTheLockReenters() throws Exception {
        String key = lockKey("order:nested");
        assertTrue(orders.placeAndBook("nested", () -> Probe.isLocked(key)));
        assertReleased(key);
    }

    private void assertReleased(String key) throws InterruptedException {
        long deadline = System.nanoTime() + RELEASE_SLACK.toNanos();
        while (Probe.isLocked(key) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertFalse(Probe.isLocked(key), "released after the transaction completed");
    }

    private String lockKey(String key) {
        return distlock.settings().keyPrefix() + ":lock:" + key;
    }
}
