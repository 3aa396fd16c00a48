package dev.distlock.transactions;

import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import dev.distlock.DistributedLocks;
import dev.distlock.internal.core.EngineBuilder;
import dev.distlock.internal.core.JtaTransactions;
import dev.distlock.internal.core.TransactionBridge;
import dev.distlock.redis.RedisBackend;
import dev.distlock.testkit.TestRedis;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The twin of the matrix's protection, with the engine alone: a lock taken inside a transaction
 * (Narayana's, begun here) stays until the transaction has completed because the engine sees the
 * transaction. With the engine's transaction bridge switched off, the same code gives the lock up
 * when the locked call returns, and the {@link Contender} that {@link TransactionMatrixTest} relies
 * on gets in while the transaction is still active: the matrix's assertion can fail.
 */
class TransactionBridgeTwinTest {

    private final TransactionManager transactions = Narayana.transactionManager();

    @Test
    void aLockTakenInATransactionStaysUntilItHasCompleted() throws Exception {
        assertNull(lockInsideATransaction(new JtaTransactions(TransactionSynchronizationRegistryImple::new)));
    }

    @Test
    void withoutTheTransactionBridgeAnotherCallerGetsInWhileItIsActive() throws Exception {
        String overlap = lockInsideATransaction(TransactionBridge.NONE);
        assertNotNull(overlap);
        assertTrue(overlap.contains("still"), overlap);
    }

    /** @return what of the transaction was still running as the contender got the lock, {@code null} if nothing */
    private String lockInsideATransaction(TransactionBridge bridge) throws Exception {
        RedissonClient client = TestRedis.newClient();
        try (DistributedLocks locks = new EngineBuilder().keyPrefix(TestRedis.uniquePrefix("bridge")).transactions(bridge)
                .build(new RedisBackend(() -> client, 5_000, 0))) {
            AtomicReference<Contender> contender = new AtomicReference<>();
            transactions.begin();
            Transaction transaction = transactions.getTransaction();
            try {
                locks.exclusive("k").run(() ->
                        contender.set(new Contender(locks, "k", () -> TransactionShapesTest.stillRunning(transaction))));
                boolean enteredBeforeCommit = contender.get().entersWithin(Duration.ofMillis(500));
                assertFalse(enteredBeforeCommit && bridge != TransactionBridge.NONE, "entered while the transaction was active");
            } finally {
                transactions.commit();
            }
            return contender.get().overlap();
        } finally {
            client.shutdown();
        }
    }
}
