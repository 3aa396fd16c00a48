package dev.distlock.internal.core;

import dev.distlock.DistributedLocks;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One holder at a time: a non-atomic read-modify-write under the lock never loses an update. */
@Timeout(60)
class MutualExclusionTest {

    private static final int THREADS = 8;
    private static final int ITERATIONS = 25;

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final DistributedLocks locks = DistributedLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("mutex")).build();

    /** The shared state the section reads, then writes; racy unless something excludes. */
    private final AtomicInteger counter = new AtomicInteger();
    private final AtomicBoolean inside = new AtomicBoolean();
    private final AtomicInteger overlaps = new AtomicInteger();

    @Test
    void oneHolderAtATime() throws Exception {
        contend(() -> locks.exclusive("counter").waitTime(Duration.ofSeconds(30)).run(this::criticalSection));

        assertEquals(0, overlaps.get(), "threads were inside the locked section together");
        assertEquals(THREADS * ITERATIONS, counter.get(), "updates were lost");
    }

    /** The same section without the lock: proves the test above can fail. */
    @Test
    void withoutTheLockTheSectionRaces() throws Exception {
        contend(this::criticalSection);

        assertTrue(overlaps.get() > 0 || counter.get() != THREADS * ITERATIONS,
                "no race observed without the lock: overlaps=" + overlaps + ", counter=" + counter);
    }

    private void criticalSection() {
        if (!inside.compareAndSet(false, true)) {
            overlaps.incrementAndGet();
        }
        int read = counter.get();
        sleepMillis(2); // wide enough that unsynchronized threads reliably meet in here
        counter.set(read + 1);
        inside.set(false);
    }

    private void contend(Runnable section) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < ITERATIONS; i++) {
                        section.run();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(45, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
