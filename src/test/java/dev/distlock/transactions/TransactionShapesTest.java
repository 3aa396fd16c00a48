package dev.distlock.transactions;

import dev.distlock.DistributedLocks;
import dev.distlock.LockLostException;
import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The four transaction shapes in which an independent review found the lock's promise broken,
 * each on a real transaction manager (Narayana, with its own {@code @Transactional}) and a real
 * Redis: a plain {@code @Transactional} bean between two locked calls; {@code REQUIRES_NEW} inside
 * a locked call; a transaction that waits for its own lock (after {@code setRollbackOnly}, and
 * under {@code NOT_SUPPORTED} or {@code REQUIRES_NEW} begun in it); and the check before commit
 * running before the persistence provider's flush. The matrix of every placement, shape and
 * outcome is {@link TransactionMatrixTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionShapesTest {

    @ApplicationScoped
    public static class Facade {
        @Inject
        Repository repository;

        /** Shape 1: locked, no transaction of its own; a plain transactional repository inside. */
        @Locked("a:{id}")
        public void saveThen(String id, Runnable inside, Runnable more) {
            repository.save(id, inside);
            more.run();
        }
    }

    @ApplicationScoped
    public static class Repository {
        @Inject
        Audit audit;

        @Transactional
        public void save(String id, Runnable inside) {
            audit.record(id, inside);
        }

        @Transactional(Transactional.TxType.REQUIRES_NEW)
        public void saveApart(String id, Runnable inside) {
            audit.record(id, inside);
        }
    }

    @ApplicationScoped
    public static class Audit {
        @Locked("b:{id}")
        public void record(String id, Runnable inside) {
            inside.run();
        }
    }

    @ApplicationScoped
    public static class Shop {
        @Inject
        Repository repository;
        @Inject
        TransactionSynchronizationRegistry registry;

        /** Shape 2: locked inside the caller's transaction, with an audit record in a transaction of its own. */
        @Locked("k:{id}")
        public void reserve(String id, Runnable inside) {
            repository.saveApart(id, inside);
        }

        /** Takes the key inside the caller's transaction, which keeps it until it completes. */
        @Locked("k:{id}")
        public void take(String id) {
        }

        /** Shape 3: fails inside the caller's transaction, which Narayana then marks rollback-only. */
        @Locked("k:{id}")
        @Transactional
        public void reserveFailing(String id) {
            throw new IllegalStateException("out of stock");
        }

        /**
         * Locked, in a transaction of its own that the transaction manager ends only when the returned
         * stage completes: it suspends the transaction as the method returns.
         */
        @Locked("k:{id}")
        @Transactional
        public CompletionStage<String> reserveLater(String id, CompletionStage<String> done) {
            return done;
        }

        /** Waits its turn: for after the lock was given back. */
        @Locked(value = "k:{id}", waitTime = 10_000)
        public String touchWaiting(String id) {
            return "touched";
        }

        /** Must never wait: its caller's transaction holds the key already. */
        @Locked(value = "k:{id}", waitTime = 0)
        public String touch(String id) {
            return "touched";
        }

        /**
         * Shape 4: a synchronization registered after the lock's, as the persistence provider's is when
         * the entity manager first joins the transaction, whose flush takes the lock's key away.
         */
        @Locked("f:{id}")
        @Transactional
        public void flushLosingTheLock(String id, Runnable flush) {
            registry.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    flush.run();
                }

                @Override
                public void afterCompletion(int status) {
                }
            });
        }
    }

    @ApplicationScoped
    public static class Later {
        @Inject
        Shop shop;

        /** No lock of its own: a locked callee takes one in the transaction that the returned stage's completion ends. */
        @Transactional
        public CompletionStage<String> takeThenFinishLater(String id, CompletionStage<String> done) {
            shop.take(id);
            return done;
        }
    }

    private DistlockWeld weld;
    private DistributedLocks locks;
    private String prefix;

    @BeforeAll
    void start() {
        prefix = TestRedis.uniquePrefix("shapes");
        weld = container(Map.of("distlock.key-prefix", prefix), Facade.class, Repository.class, Audit.class, Shop.class, Later.class,
                Steps.class);
        locks = weld.bean(DistributedLocks.class);
    }

    /** Full CDI: distlock's portable extension. */
    DistlockWeld container(Map<String, String> properties, Class<?>... beans) {
        return Narayana.start(properties, beans);
    }

    @AfterAll
    void stop() {
        weld.close();
    }

    /**
     * Shape 1: the repository's transaction begins and commits inside the locked call; the lock must
     * stay with the call until it returns, not go with that commit.
     */
    @Test
    void aPlainTransactionalBeanBetweenTwoLockedCallsKeepsTheOuterLockToTheEnd() throws Exception {
        AtomicBoolean holderInside = new AtomicBoolean();
        AtomicReference<Contender> contender = new AtomicReference<>();
        AtomicBoolean contenderEnteredDuringMore = new AtomicBoolean();
        weld.bean(Facade.class).saveThen("1", () -> {
            holderInside.set(true);
            contender.set(new Contender(locks, "a:1", () -> holderInside.get() ? "saveThen is still running" : null));
        }, () -> {
            try {
                contenderEnteredDuringMore.set(contender.get().entersWithin(Duration.ofSeconds(1)));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                holderInside.set(false);
            }
        });
        assertFalse(contenderEnteredDuringMore.get(), "another caller got lock a while saveThen still ran");
        assertNull(contender.get().overlap());
    }

    /**
     * Shape 2: the audit record's own transaction completes while the caller's is still active; the
     * lock taken in the caller's transaction must stay until that one completes.
     */
    @Test
    void requiresNewInsideALockedCallLeavesTheCallersTransactionItsLock() throws Exception {
        AtomicReference<Contender> contender = new AtomicReference<>();
        AtomicReference<Transaction> callers = new AtomicReference<>();
        Object enteredBeforeCommit = weld.bean(Steps.class).required(() -> {
            callers.set(Narayana.current());
            weld.bean(Shop.class).reserve("2", () ->
                    contender.set(new Contender(locks, "k:2", () -> stillRunning(callers.get()))));
            return contender.get().entersWithin(Duration.ofSeconds(1));
        });
        assertEquals(false, enteredBeforeCommit, "another caller got lock k while the transaction that took it was active");
        assertNull(contender.get().overlap());
    }

    /** Shape 3: after a locked call failed and doomed the transaction, the catch block's locked call reenters. */
    @Test
    void aDoomedTransactionDoesNotWaitForItsOwnLock() throws Exception {
        Object touched = weld.bean(Steps.class).required(() -> {
            Shop shop = weld.bean(Shop.class);
            assertThrows(IllegalStateException.class, () -> shop.reserveFailing("3"));
            assertEquals(Status.STATUS_MARKED_ROLLBACK, Narayana.current().getStatus());
            return shop.touch("3");
        });
        assertEquals("touched", touched);
    }

    /** Shape 3: a chain begun under NOT_SUPPORTED in a transaction that holds the key reenters it. */
    @Test
    void aChainSuspendingTheTransactionDoesNotWaitForItsLock() throws Exception {
        Steps steps = weld.bean(Steps.class);
        Shop shop = weld.bean(Shop.class);
        Object touched = steps.required(() -> {
            shop.take("3n");
            return steps.notSupported(() -> shop.touch("3n"));
        });
        assertEquals("touched", touched);
    }

    /** Shape 3: a chain begun under REQUIRES_NEW in a transaction that holds the key reenters it. */
    @Test
    void aNewTransactionInsideOneThatHoldsTheKeyDoesNotWaitForIt() throws Exception {
        Steps steps = weld.bean(Steps.class);
        Shop shop = weld.bean(Shop.class);
        Object touched = steps.required(() -> {
            shop.take("3r");
            return steps.requiresNew(() -> shop.touch("3r"));
        });
        assertEquals("touched", touched);
    }

    /**
     * Shape 4: the check before commit must run after the persistence provider's flush, whose
     * synchronization is registered after the lock's: a lock lost during the flush rolls back.
     */
    @Test
    void theCheckBeforeCommitRunsAfterTheFlush() {
        String key = prefix + ":lock:f:4";
        LockLostException lost = assertThrows(LockLostException.class,
                () -> weld.bean(Shop.class).flushLosingTheLock("4", () -> TestRedis.newClient().getKeys().delete(key)));
        assertTrue(lost.rolledBack(), "the transaction committed: " + lost.getMessage());
    }

    /**
     * An asynchronous {@code @Transactional} call: the transaction manager suspends its transaction
     * as the method returns a stage, and commits it when the stage completes. Until then the lock
     * is the call's and its transaction's, and a later caller on the same thread — directly, or in
     * a transaction of its own — is another caller: it must not enter.
     */
    @Test
    void anAsynchronousTransactionalCallLeavesNoOwnerOnItsThread() throws Exception {
        Shop shop = weld.bean(Shop.class);
        CompletableFuture<String> done = new CompletableFuture<>();
        CompletionStage<String> later = shop.reserveLater("5", done);
        assertNull(Narayana.current(), "the transaction manager suspended the asynchronous call's transaction");
        assertThrows(LockTimeoutException.class, () -> shop.touch("5"),
                "a later caller on the thread entered the lock that the unfinished asynchronous call holds");
        assertThrows(LockTimeoutException.class, () -> weld.bean(Steps.class).required(() -> shop.touch("5")),
                "a later transaction on the thread entered the lock that the unfinished asynchronous call holds");
        done.complete("reserved");
        assertEquals("reserved", later.toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertEquals("touched", shop.touchWaiting("5"));
    }

    /** The same when the lock is a callee's, taken inside the asynchronous transaction. */
    @Test
    void aLockedCalleeInsideAnAsynchronousTransactionLeavesNoOwnerOnItsThread() throws Exception {
        Shop shop = weld.bean(Shop.class);
        CompletableFuture<String> done = new CompletableFuture<>();
        CompletionStage<String> later = weld.bean(Later.class).takeThenFinishLater("5c", done);
        assertThrows(LockTimeoutException.class, () -> shop.touch("5c"),
                "a later caller on the thread entered the lock that the unfinished asynchronous transaction holds");
        done.complete("reserved");
        assertEquals("reserved", later.toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertEquals("touched", shop.touchWaiting("5c"));
    }

    /**
     * Two threads of one transaction: its locks belong to the chain that took them, on its thread.
     * Resumed on another thread, the transaction's work there is a caller of its own, which does not
     * enter a lock the first thread's chain holds; back on its own thread, the chain reenters.
     */
    @Test
    void aTransactionResumedOnAnotherThreadDoesNotEnterItsFirstThreadsLock() throws Exception {
        TransactionManager manager = Narayana.transactionManager();
        Shop shop = weld.bean(Shop.class);
        manager.begin();
        shop.take("6");
        Transaction transaction = manager.suspend();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<Object> there = other.submit(() -> {
                manager.resume(transaction);
                try {
                    return shop.touch("6");
                } catch (LockTimeoutException refused) {
                    return refused;
                } finally {
                    manager.suspend();
                }
            });
            assertInstanceOf(LockTimeoutException.class, there.get(10, TimeUnit.SECONDS),
                    "a second thread of the transaction entered the lock its first thread's chain holds");
        } finally {
            other.shutdownNow();
            manager.resume(transaction);
        }
        try {
            assertEquals("touched", shop.touch("6"), "the chain on the transaction's own thread reenters its lock");
        } finally {
            manager.rollback();
        }
    }

    /** What of the transaction is still open, for a contender; {@code null} once it has completed. */
    static String stillRunning(Transaction transaction) {
        try {
            int status = transaction.getStatus();
            return switch (status) {
                case Status.STATUS_ACTIVE, Status.STATUS_MARKED_ROLLBACK, Status.STATUS_PREPARING, Status.STATUS_PREPARED,
                     Status.STATUS_COMMITTING, Status.STATUS_ROLLING_BACK -> "transaction " + transaction + " still " + status;
                default -> null;
            };
        } catch (SystemException e) {
            return "transaction status unknown: " + e;
        }
    }
}
