package dev.distlock.transactions;

import dev.distlock.DistributedLocks;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.EngineAccess;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The twin of {@link CombinedCallsThroughBeansTest#aBatchWhoseLockIsLostBeforeItsCommitRollsBackAndFailsEveryCall}:
 * with distlock's check before the commit switched off ({@code distlock.transaction.verify-before-commit=false}),
 * a batch whose lock was lost before its commit commits, and its callers are answered as if it had
 * run alone — what the test above shows does not happen.
 */
class CombinedCallsLostLockTwinTest {

    @Test
    void withoutTheCheckBeforeCommitABatchCommitsAfterItsLockWasLost() throws Exception {
        RedissonClient redis = TestRedis.newClient();
        try (DistlockWeld weld = Narayana.start(Map.of("distlock.key-prefix", TestRedis.uniquePrefix("combined-twin"),
                "distlock.transaction.verify-before-commit", "false"), CombinedCallsThroughBeansTest.Orders.class,
                CombinedCallsThroughBeansTest.Ledger.class)) {
            CombinedCallsThroughBeansTest.Orders orders = weld.bean(CombinedCallsThroughBeansTest.Orders.class);
            CombinedCallsThroughBeansTest.Ledger ledger = weld.bean(CombinedCallsThroughBeansTest.Ledger.class);
            ledger.stock.put("lost", new AtomicInteger(100));
            String lockName = EngineAccess.lockName(weld.bean(DistributedLocks.class), "stock:lost", false);
            ledger.beforeCommit = () -> redis.getKeys().delete(lockName);
            try {
                orders.place("lost", 1);
            } catch (RuntimeException reportedAtRelease) {
                // the release may still say the lock was lost; the batch committed all the same
            }
            assertTrue(ledger.stock.get("lost").get() < 100, "the batch did not commit: the twin shows nothing");
        } finally {
            redis.shutdown();
        }
    }
}
