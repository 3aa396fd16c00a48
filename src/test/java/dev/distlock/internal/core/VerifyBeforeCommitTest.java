package dev.distlock.internal.core;

import dev.distlock.redis.RedisBackend;
import dev.distlock.testing.EngineAccess;

import dev.distlock.testkit.backend.FakeTransactions;

import dev.distlock.DistributedLocks;
import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transaction that took a lock is checked just before it commits: if the lock is gone, the
 * transaction is marked rollback-only, so work done under a lost lock is not committed.
 */
@Timeout(30)
class VerifyBeforeCommitTest {

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final FakeTransactions transactions = new FakeTransactions();
    private final List<String> lost = java.util.Collections.synchronizedList(new ArrayList<>());

    private DistributedLocks locks(boolean verify) {
        return new EngineBuilder().keyPrefix(TestRedis.uniquePrefix("verify")).transactions(transactions)
                .verifyBeforeCommit(verify)
                .listener(new LockListener() {
                    @Override
                    public void lost(String key, LockMode mode) {
                        lost.add(key);
                    }
                })
                .build(new RedisBackend(() -> redis, DistributedLocks.DEFAULT_ANSWER_GRACE.toMillis()));
    }

    @Test
    void transactionWhoseLockIsStillHeldCommits() {
        DistributedLocks locks = locks(true);
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.exclusive("stock").run(() -> { });
        assertTrue(transaction.commit());
        assertEquals(List.of(), lost);
    }

    @Test
    void transactionWhoseLockWasLostIsRolledBack() {
        DistributedLocks locks = locks(true);
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.exclusive("stock").run(() -> { });
        redis.getKeys().delete(EngineAccess.lockName(locks, "stock", false)); // Redis lost it (restart, failover)
        assertFalse(transaction.commit(), "the transaction must not commit");
        assertEquals(List.of(EngineAccess.lockName(locks, "stock", false)), lost, "told once, though the release fails too");
    }

    /** Twin: without the check, the same transaction commits work done under a lost lock. */
    @Test
    void withoutTheCheckTheTransactionCommits() {
        DistributedLocks locks = locks(false);
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.exclusive("stock").run(() -> { });
        redis.getKeys().delete(EngineAccess.lockName(locks, "stock", false));
        assertTrue(transaction.commit());
    }

    @Test
    void heldReadAndWriteLocksCommit() {
        DistributedLocks locks = locks(true);
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.read("doc").run(() -> { });
        locks.write("other").run(() -> { });
        assertTrue(transaction.commit());
        assertEquals(List.of(), lost);
    }

    @Test
    void readLocksAreCheckedToo() {
        DistributedLocks locks = locks(true);
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.read("doc").run(() -> { });
        redis.getKeys().delete(EngineAccess.lockName(locks, "doc", true));
        assertFalse(transaction.commit());
    }
}
