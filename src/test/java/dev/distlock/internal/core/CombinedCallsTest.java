package dev.distlock.internal.core;

import dev.distlock.Batch;
import dev.distlock.Combination;
import dev.distlock.CombinedCallFailedException;
import dev.distlock.DistributedLocks;
import dev.distlock.LockTimeoutException;
import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Combined calls through the engine alone (the programmatic API), on a real Redis and two engines
 * standing for two JVMs: callers waiting for the same key are served in batches, one batch per
 * tenure of the lock, each caller with its own answer or its own failure; a failed batch fails
 * every call in it; a batch is never bigger than its bound; a call inside a locked call is served
 * alone; nobody is left waiting and no group outlives its callers.
 */
@Timeout(120)
class CombinedCallsTest {

    private static final RedissonClient redis = TestRedis.sharedClient();
    private final String prefix = TestRedis.uniquePrefix("combined");
    private final DistributedLocks a = RedisLocks.builder(redis).keyPrefix(prefix).build();
    private final DistributedLocks b = RedisLocks.builder(redis).keyPrefix(prefix).build();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        pool.shutdownNow();
        a.close();
        b.close();
    }

    /** A stock of units sold in batches: read once, each order answered or refused, written once. */
    private static final class Stock {
        final AtomicInteger units;
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final List<Integer> batchSizes = new CopyOnWriteArrayList<>();

        Stock(int units) {
            this.units = new AtomicInteger(units);
        }

        Combination<Integer> selling(int max) {
            return Combination.of(max, this::sell);
        }

        void sell(Batch<Integer> batch) throws InterruptedException {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            try {
                batchSizes.add(batch.size());
                int left = units.get(); // one read
                Thread.sleep(2); // the database's round trips, paid once per batch
                for (Batch.Call<Integer> call : batch) {
                    int quantity = call.argument(0);
                    if (quantity > left) {
                        call.fail(new IllegalStateException("sold out"));
                    } else {
                        left -= quantity;
                        call.complete(left);
                    }
                }
                units.set(left); // one write
            } finally {
                inside.decrementAndGet();
            }
        }
    }

    /** Rounds of 300 callers on 100 units: 6,000 combined calls in all. */
    @Test
    void callersOfTwoEnginesAreServedInBatchesEachWithItsOwnAnswerAndTheStockIsExact() throws Exception {
        List<Integer> sizes = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            Stock stock = new Stock(100);
            Combination<Integer> selling = stock.selling(32);
            String sku = "sku-" + round;
            Map<String, Integer> answers = storm(300, i -> (i % 2 == 0 ? a : b).exclusive(sku).waitTime(Duration.ofSeconds(60))
                    .combine(selling, 1));
            assertEquals(0, stock.overlaps.get(), "two batches ran at once in round " + round);
            assertEquals(Map.of("sold", 100, "IllegalStateException: sold out", 200), answers, "round " + round);
            assertEquals(0, stock.units.get());
            assertEquals(300, stock.batchSizes.stream().mapToInt(Integer::intValue).sum(), "calls served: " + stock.batchSizes);
            assertTrue(stock.batchSizes.stream().allMatch(size -> size <= 32), "a batch beyond its bound: " + stock.batchSizes);
            sizes.addAll(stock.batchSizes);
            assertNoGroupLeft();
        }
        System.out.println("combined calls: 6,000 calls in " + sizes.size() + " batches, sizes " + sizes.stream().sorted().toList());
        assertTrue(sizes.size() < 6_000 / 2, "calls were hardly combined: " + sizes.size() + " batches for 6,000 calls");
    }

    /** The twin: the same batches without the lock run at once across the engines and oversell. */
    @Test
    void withoutTheLockTheSameBatchesOverlapAndOversell() throws Exception {
        Stock stock = new Stock(100);
        Combination<Integer> selling = stock.selling(32);
        Map<String, Integer> answers = storm(300, i -> {
            Object[] order = {1};
            return (Integer) CombinedCalls.alone(new CombinedCalls.CombinedMethod() {
                @Override
                public int max() {
                    return 32;
                }

                @Override
                @SuppressWarnings({"unchecked", "rawtypes"})
                public void serve(Batch<Object> batch) throws Exception {
                    selling.work().serve((Batch) batch);
                }
            }, order);
        });
        assertTrue(stock.overlaps.get() > 0 || answers.getOrDefault("sold", 0) > 100,
                "without the lock, no overlap and no oversell: " + answers + ", overlaps " + stock.overlaps);
    }

    @Test
    void aBatchNeverServesMoreThanItsBound() throws Exception {
        Stock stock = new Stock(1_000);
        Combination<Integer> selling = stock.selling(4);
        storm(100, i -> a.exclusive("bounded").waitTime(Duration.ofSeconds(60)).combine(selling, 1));
        assertTrue(stock.batchSizes.stream().allMatch(size -> size <= 4), "a batch beyond its bound: " + stock.batchSizes);
        assertEquals(100, stock.batchSizes.stream().mapToInt(Integer::intValue).sum());
        assertNoGroupLeft();
    }

    /**
     * A batch is a tenure of its own: its lock goes back to the store at its release, never on to
     * the next batch of the JVM, so that a JVM with a deep queue does not keep the lock from the
     * other for the length of the handoff bound: batches of two engines take turns.
     */
    @Test
    void eachBatchIsATenureOfItsOwnAndTheEnginesTakeTurns() throws Exception {
        List<String> servedBy = new CopyOnWriteArrayList<>();
        Stock stock = new Stock(1_000);
        Combination<Integer> sellingA = Combination.of(8, batch -> {
            servedBy.add("a");
            stock.sell(batch);
        });
        Combination<Integer> sellingB = Combination.of(8, batch -> {
            servedBy.add("b");
            stock.sell(batch);
        });
        long before = EngineAccess.executor(a).handoffCount() + EngineAccess.executor(b).handoffCount();
        storm(400, i -> i % 2 == 0 ? a.exclusive("turns").waitTime(Duration.ofSeconds(60)).combine(sellingA, 1)
                : b.exclusive("turns").waitTime(Duration.ofSeconds(60)).combine(sellingB, 1));
        long handoffs = EngineAccess.executor(a).handoffCount() + EngineAccess.executor(b).handoffCount() - before;
        int turns = 0;
        for (int i = 1; i < servedBy.size(); i++) {
            turns += servedBy.get(i).equals(servedBy.get(i - 1)) ? 0 : 1;
        }
        System.out.println("combined calls: " + servedBy.size() + " batches of two engines, " + turns + " changes of engine, "
                + handoffs + " handed on in a JVM");
        assertEquals(0, stock.overlaps.get());
        assertEquals(0, handoffs, "a batch's lock was handed on in its JVM");
        assertTrue(turns >= servedBy.size() / 4, "the engines took turns only " + turns + " times in " + servedBy.size() + " batches");
        assertNoGroupLeft();
    }

    /** Each batch is a flight recorder event on its leader's thread, with its size and outcome. */
    @Test
    void eachBatchIsRecordedWithItsSize() throws Exception {
        Stock stock = new Stock(1_000);
        Combination<Integer> selling = stock.selling(8);
        java.nio.file.Path file = java.nio.file.Files.createTempFile("combined", ".jfr");
        try (jdk.jfr.Recording recording = new jdk.jfr.Recording()) {
            recording.enable("distlock.CombinedBatch").withThreshold(Duration.ZERO);
            recording.start();
            storm(100, i -> a.exclusive("recorded").waitTime(Duration.ofSeconds(60)).combine(selling, 1));
            recording.stop();
            recording.dump(file);
        }
        List<jdk.jfr.consumer.RecordedEvent> events = jdk.jfr.consumer.RecordingFile.readAllEvents(file).stream()
                .filter(event -> event.getEventType().getName().equals("distlock.CombinedBatch")).toList();
        java.nio.file.Files.delete(file);
        assertEquals(stock.batchSizes.size(), events.size(), "one event per batch");
        assertEquals(100, events.stream().mapToInt(event -> event.getInt("size")).sum(), "sizes of the recorded batches");
        assertTrue(events.stream().allMatch(event -> event.getString("outcome").equals("answered")
                && event.getString("lock").equals("recorded")), events::toString);
    }

    /** The batch throws: every call in it fails, saying so, with the batch's failure as the cause. */
    @Test
    void aFailedBatchFailsEveryCallInIt() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch queued = new CountDownLatch(1);
        Future<?> holder = pool.submit(() -> b.exclusive("boom").run(() -> {
            held.countDown();
            await(queued);
        }));
        held.await();
        Combination<String> failing = Combination.of(32, batch -> {
            throw new IllegalStateException("the database is gone");
        });
        List<Future<String>> calls = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            calls.add(pool.submit(() -> a.exclusive("boom").waitTime(Duration.ofSeconds(30)).combine(failing, "order")));
        }
        Thread.sleep(300); // every caller waiting, behind the holder of the other engine
        queued.countDown();
        holder.get(10, TimeUnit.SECONDS);
        for (Future<String> call : calls) {
            Throwable failure = assertThrows(Exception.class, () -> call.get(30, TimeUnit.SECONDS)).getCause();
            CombinedCallFailedException failed = assertInstanceOf(CombinedCallFailedException.class, failure);
            assertInstanceOf(IllegalStateException.class, failed.getCause());
            assertTrue(failed.getMessage().contains("the database is gone") && failed.batchSize() >= 1, failed.getMessage());
        }
        assertNoGroupLeft();
    }

    @Test
    void aCallTheBatchLeftUnansweredFailsAlone() throws Exception {
        Combination<String> forgetful = Combination.of(32, batch -> {
            for (Batch.Call<String> call : batch) {
                if (!"forgotten".equals(call.argument(0))) {
                    call.complete("served " + call.argument(0));
                }
            }
        });
        assertEquals("served kept", a.exclusive("unanswered").combine(forgetful, "kept"));
        IllegalStateException unanswered = assertThrows(IllegalStateException.class,
                () -> a.exclusive("unanswered").combine(forgetful, "forgotten"));
        assertTrue(unanswered.getMessage().contains("without answering"), unanswered.getMessage());
    }

    /** Inside another locked call the call stays in its chain: it is served alone, on its own thread, and reenters the key. */
    @Test
    void aCallInsideALockedCallIsServedAloneOnItsThread() throws Exception {
        Thread caller = Thread.currentThread();
        AtomicInteger servedHere = new AtomicInteger();
        Combination<String> onThisThread = Combination.of(32, batch -> {
            if (Thread.currentThread() == caller && batch.size() == 1) {
                servedHere.incrementAndGet();
            }
            batch.forEach(call -> call.complete("alone"));
        });
        String answer = a.exclusive("outer").call(() -> a.exclusive("outer").waitTime(Duration.ZERO).combine(onThisThread, "x"));
        assertEquals("alone", answer);
        assertEquals(1, servedHere.get());
    }

    @Test
    void aCallWhoseBatchDoesNotStartInTimeTimesOutOrIsSkipped() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Future<?> holder = pool.submit(() -> b.exclusive("busy").run(() -> {
            held.countDown();
            await(done);
        }));
        held.await();
        Combination<String> never = Combination.of(32, batch -> batch.forEach(call -> call.complete("ran")));
        assertThrows(LockTimeoutException.class, () -> a.exclusive("busy").waitTime(Duration.ofMillis(200)).combine(never, "x"));
        assertNull(a.exclusive("busy").waitTime(Duration.ofMillis(200)).skipOnTimeout().combine(never, "y"));
        done.countDown();
        holder.get(10, TimeUnit.SECONDS);
        assertEquals("ran", a.exclusive("busy").combine(never, "z"));
        assertNoGroupLeft();
    }

    @FunctionalInterface
    private interface Order {
        Integer place(int i) throws Exception;
    }

    /** {@code calls} callers at once; what each was answered ("sold", or the failure), counted. */
    private Map<String, Integer> storm(int calls, Order order) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            int n = i;
            answers.add(pool.submit(() -> {
                start.await();
                try {
                    order.place(n);
                    return "sold";
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

    private void assertNoGroupLeft() {
        assertEquals(0, EngineAccess.executor(a).combined().groupCount(), "a group of combined calls outlived its callers");
        assertEquals(0, EngineAccess.executor(b).combined().groupCount(), "a group of combined calls outlived its callers");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
