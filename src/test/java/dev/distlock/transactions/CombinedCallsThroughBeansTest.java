package dev.distlock.transactions;

import dev.distlock.Batch;
import dev.distlock.Combined;
import dev.distlock.CombinedCallFailedException;
import dev.distlock.DistributedLocks;
import dev.distlock.LockLostException;
import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.EngineAccess;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code @Combined} through beans, on Narayana and a real Redis: a batch runs in one transaction of
 * its batch method's, and its callers get their answers only after that transaction committed; a
 * batch whose transaction rolls back — the batch method threw, or the lock was lost before the
 * commit — fails every call in it, and nothing of it commits; a caller inside a transaction of its
 * own is served alone, by the method itself, in its transaction.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CombinedCallsThroughBeansTest {

    /** What the batches did, kept as a store would: committed work only. No client proxy: the test reads its fields. */
    @Singleton
    public static class Ledger {
        final Map<String, AtomicInteger> stock = new ConcurrentHashMap<>();
        final List<Integer> committedBatches = new CopyOnWriteArrayList<>();
        final Set<Object> transactions = ConcurrentHashMap.newKeySet();
        final AtomicInteger rolledBack = new AtomicInteger();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        volatile Runnable beforeCommit = () -> { };
    }

    @ApplicationScoped
    public static class Orders {
        @Inject
        Ledger ledger;
        @Inject
        TransactionSynchronizationRegistry registry;

        /** One order, alone: the path of a caller in a transaction of its own. */
        @Locked("stock:{sku}")
        @Combined("placeAll")
        @Transactional
        public String place(String sku, int quantity) {
            ledger.stock.get(sku).addAndGet(-quantity);
            return "alone in " + registry.getTransactionKey();
        }

        /** A batch: one read, each order answered, one write, one commit. */
        @Transactional
        public void placeAll(Batch<String> batch) throws InterruptedException {
            if (ledger.inside.incrementAndGet() != 1) {
                ledger.overlaps.incrementAndGet();
            }
            try {
                Object transaction = registry.getTransactionKey();
                ledger.transactions.add(transaction);
                int size = batch.size();
                String sku = null;
                int left = 0;
                int sold = 0;
                for (Batch.Call<String> call : batch) {
                    if (sku == null) {
                        sku = call.argument(0);
                        left = ledger.stock.get(sku).get();
                    }
                    int quantity = call.argument(1);
                    if (quantity > left - sold) {
                        call.fail(new IllegalStateException("sold out"));
                    } else {
                        sold += quantity;
                        call.complete("batch of " + size + " in " + transaction);
                    }
                }
                if (sku.startsWith("failing")) {
                    throw new IllegalStateException("the database is gone");
                }
                Thread.sleep(1);
                String written = sku;
                int taken = sold;
                registry.registerInterposedSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                        ledger.beforeCommit.run();
                    }

                    @Override
                    public void afterCompletion(int status) {
                        if (status == Status.STATUS_COMMITTED) {
                            ledger.stock.get(written).addAndGet(-taken); // the write, as committed
                            ledger.committedBatches.add(size);
                        } else {
                            ledger.rolledBack.incrementAndGet();
                        }
                    }
                });
            } finally {
                ledger.inside.decrementAndGet();
            }
        }
    }

    private DistlockWeld weld;
    private Orders orders;
    private Ledger ledger;
    private DistributedLocks locks;
    private RedissonClient redis;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeAll
    void start() {
        weld = container(Map.of("distlock.key-prefix", TestRedis.uniquePrefix("combined-beans")), Orders.class, Ledger.class,
                Steps.class);
        orders = weld.bean(Orders.class);
        ledger = weld.bean(Ledger.class);
        locks = weld.bean(DistributedLocks.class);
        redis = TestRedis.newClient();
    }

    /** Full CDI: distlock's portable extension. */
    DistlockWeld container(Map<String, String> properties, Class<?>... beans) {
        return Narayana.start(properties, beans);
    }

    @AfterAll
    void stop() {
        pool.shutdownNow();
        weld.close();
        redis.shutdown();
    }

    /** 10 storms of 200 buyers for 100 units: every unit sold once, each batch one committed transaction. */
    @Test
    void eachBatchIsOneTransactionAndEveryStockIsExact() throws Exception {
        for (int round = 0; round < 10; round++) {
            String sku = "mug-" + round;
            ledger.stock.put(sku, new AtomicInteger(100));
            int batchesBefore = ledger.committedBatches.size();
            Map<String, Integer> answers = storm(200, () -> orders.place(sku, 1));
            assertEquals(Map.of("batch", 100, "IllegalStateException: sold out", 100), answers, "round " + round);
            assertEquals(0, ledger.stock.get(sku).get(), "round " + round);
            List<Integer> batches = ledger.committedBatches.subList(batchesBefore, ledger.committedBatches.size());
            assertEquals(200, batches.stream().mapToInt(Integer::intValue).sum(), "calls served in committed batches: " + batches);
        }
        assertEquals(0, ledger.overlaps.get(), "two batches ran at once");
        assertEquals(ledger.committedBatches.size(), ledger.transactions.size(), "a transaction per batch");
        assertTrue(ledger.committedBatches.size() < 1_000, "calls were hardly combined: " + ledger.committedBatches.size()
                + " batches for 2,000 calls");
        System.out.println("combined through beans: 2,000 calls in " + ledger.committedBatches.size() + " batches");
        assertEquals(0, EngineAccess.executor(locks).combined().groupCount());
    }

    /** The batch method throws: its transaction rolls back, and every caller of the batch is told so. */
    @Test
    void aBatchWhoseTransactionRollsBackFailsEveryCallInItAndNothingCommits() throws Exception {
        String sku = "failing-" + System.nanoTime();
        ledger.stock.put(sku, new AtomicInteger(100));
        int rolledBack = ledger.rolledBack.get();
        Map<String, Integer> answers = storm(50, () -> orders.place(sku, 1));
        assertEquals(Set.of("CombinedCallFailedException"), answers.keySet(), "answers: " + answers);
        assertEquals(100, ledger.stock.get(sku).get(), "something of a failed batch was written");
        assertEquals(rolledBack, ledger.rolledBack.get(), "a batch that threw registered no write");
    }

    /** The lock is lost before the commit: the check rolls the batch's transaction back, and every caller learns why. */
    @Test
    void aBatchWhoseLockIsLostBeforeItsCommitRollsBackAndFailsEveryCall() throws Exception {
        String sku = "lost-" + System.nanoTime();
        ledger.stock.put(sku, new AtomicInteger(100));
        String lockName = EngineAccess.lockName(locks, "stock:" + sku, false);
        ledger.beforeCommit = () -> redis.getKeys().delete(lockName);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        try {
            storm(30, () -> {
                try {
                    return orders.place(sku, 1);
                } catch (RuntimeException e) {
                    failures.add(e);
                    throw e;
                }
            });
        } finally {
            ledger.beforeCommit = () -> { };
        }
        assertEquals(30, failures.size(), "callers answered although their batch lost its lock: " + failures);
        for (Throwable failure : failures) {
            CombinedCallFailedException failed = assertInstanceOf(CombinedCallFailedException.class, failure);
            LockLostException lost = assertInstanceOf(LockLostException.class, failed.getCause());
            assertTrue(lost.rolledBack(), lost.getMessage());
        }
        assertEquals(100, ledger.stock.get(sku).get(), "a batch committed after its lock was lost");
    }

    /** Inside a transaction of its own, the call is never combined: the method itself runs, in that transaction. */
    @Test
    void aCallerInItsOwnTransactionIsServedAloneInIt() throws Exception {
        String sku = "own-" + System.nanoTime();
        ledger.stock.put(sku, new AtomicInteger(10));
        TransactionSynchronizationRegistry registry = weld.bean(TransactionSynchronizationRegistry.class);
        Object[] seen = new Object[2];
        weld.bean(Steps.class).required(() -> {
            seen[0] = "alone in " + registry.getTransactionKey();
            seen[1] = orders.place(sku, 3);
            return null;
        });
        assertEquals(seen[0], seen[1], "not the method itself in the caller's transaction");
        assertEquals(7, ledger.stock.get(sku).get());
    }

    @FunctionalInterface
    private interface Order {
        String place() throws Exception;
    }

    /** {@code calls} callers at once; what each was answered ("batch", or the failure), counted. */
    private Map<String, Integer> storm(int calls, Order order) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            answers.add(pool.submit(() -> {
                start.await();
                try {
                    String answer = order.place();
                    return answer.startsWith("batch") ? "batch" : answer;
                } catch (CombinedCallFailedException e) {
                    return e.getClass().getSimpleName();
                } catch (Exception e) {
                    return e.getClass().getSimpleName() + ": " + e.getMessage();
                }
            }));
        }
        start.countDown();
        Map<String, Integer> counted = new ConcurrentHashMap<>();
        for (Future<String> answer : answers) {
            counted.merge(answer.get(60, TimeUnit.SECONDS), 1, Integer::sum);
        }
        return counted;
    }

    @Test
    void aCallNotInATransactionIsNeverServedAloneByTheMethod() throws Exception {
        String sku = "single-" + System.nanoTime();
        ledger.stock.put(sku, new AtomicInteger(1));
        String answer = orders.place(sku, 1);
        assertTrue(answer.startsWith("batch of 1"), answer);
        assertThrows(IllegalStateException.class, () -> orders.place(sku, 1));
    }
}
