package dev.distlock.internal.core;

import dev.distlock.redis.RedisBackend;
import dev.distlock.testing.EngineAccess;

import dev.distlock.testkit.backend.FakeTransactions;
import dev.distlock.testkit.backend.OtherOwner;

import dev.distlock.DistributedLocks;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Inside a transaction, a lock is owned by the transaction: held after the locked work returns,
 * reentered by later calls in the same transaction, and released when the transaction completes.
 */
@Timeout(30)
class TransactionDeferralTest {

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final FakeTransactions transactions = new FakeTransactions();
    private final DistributedLocks locks = new EngineBuilder().keyPrefix(TestRedis.uniquePrefix("tx")).transactions(transactions)
            .build(new RedisBackend(() -> redis, DistributedLocks.DEFAULT_ANSWER_GRACE.toMillis()));
    private final RLock stock = redis.getLock(EngineAccess.lockName(locks, "stock", false));

    @Test
    void heldUntilTheTransactionCompletes() throws Exception {
        FakeTransactions.Transaction transaction = transactions.begin();

        locks.exclusive("stock").run(() -> { });

        assertTrue(stock.isLocked(), "released when the work returned, before the transaction completed");
        assertFalse(OtherOwner.gets(locks.exclusive("stock")), "another owner got the transaction's lock");

        transaction.complete();

        assertReleasedWithin(Duration.ofSeconds(5));
        // The releasing owner leaves its local turn once Redis has answered the unlock, a moment after
        // Redis shows the key free: a caller that tries once in that moment finds the turn still taken.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        boolean got = OtherOwner.gets(locks.exclusive("stock"));
        while (!got && System.nanoTime() < deadline) {
            Thread.sleep(20);
            got = OtherOwner.gets(locks.exclusive("stock"));
        }
        assertTrue(got, "another owner could not get the lock within 5 s of its release");
    }

    @Test
    void laterCallsInTheSameTransactionReenter() throws Exception {
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.exclusive("stock").run(() -> { });

        long start = System.nanoTime();
        String second = locks.exclusive("stock").waitTime(Duration.ZERO).get(() -> "second call ran");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertEquals("second call ran", second);
        assertTrue(tookMillis < 1_000, "the second call took " + tookMillis + " ms");
        assertEquals(1, transaction.afterCompletionActions(), "one release per transaction, not per call");
        assertTrue(stock.isLocked());

        transaction.complete();
        assertReleasedWithin(Duration.ofSeconds(5));
    }

    /** {@code @Locked} runs outside {@code @Transactional}: the transaction begins inside the lock. */
    @Test
    void aTransactionBegunInsideALockedCallReentersItsLock() {
        String inner = locks.exclusive("stock").get(() -> {
            FakeTransactions.Transaction transaction = transactions.begin();
            try {
                return locks.exclusive("stock").waitTime(Duration.ZERO).get(() -> "nested call ran");
            } finally {
                transaction.complete();
            }
        });

        assertEquals("nested call ran", inner);
        assertFalse(stock.isLocked());
    }

    @Test
    void newKeysTakenInsideSuchATransactionAreStillDeferred() throws Exception {
        RLock audit = redis.getLock(EngineAccess.lockName(locks, "audit", false));
        boolean[] auditHeldAfterItsCall = new boolean[1];

        locks.exclusive("stock").run(() -> {
            FakeTransactions.Transaction transaction = transactions.begin();
            locks.exclusive("audit").run(() -> { });
            auditHeldAfterItsCall[0] = audit.isLocked();
            transaction.complete();
        });

        assertTrue(auditHeldAfterItsCall[0], "released before the transaction completed");
        assertReleasedWithin(audit, Duration.ofSeconds(5));
    }

    @Test
    void withoutATransactionTheLockIsReleasedOnReturn() {
        locks.exclusive("stock").run(() -> { });

        assertFalse(stock.isLocked());
    }

    private void assertReleasedWithin(Duration patience) throws InterruptedException {
        assertReleasedWithin(stock, patience);
    }

    private static void assertReleasedWithin(RLock lock, Duration patience) throws InterruptedException {
        // The release after completion is sent without waiting for Redis's answer.
        long deadline = System.nanoTime() + patience.toNanos();
        while (lock.isLocked() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(lock.isLocked(), "still locked " + patience.toMillis() + " ms after the transaction completed");
    }
}
