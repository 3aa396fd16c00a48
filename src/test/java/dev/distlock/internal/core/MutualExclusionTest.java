package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import dev.distlock.testkit.OverlapDetector;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** One holder at a time: a non-atomic read-modify-write under the lock never loses an update. */
@Timeout(60)
class MutualExclusionTest {

    private static final int THREADS = 8;
    private static final int ITERATIONS = 25;

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final DistributedLocks locks = RedisLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("mutex")).build();

    /** Sections that read a counter, pause 2 ms (wide enough that unsynchronized threads reliably meet in there), write it. */
    private final OverlapDetector overlap = new OverlapDetector(TimeUnit.MILLISECONDS.toNanos(2));

    @Test
    void oneHolderAtATime() throws Exception {
        contend(() -> locks.exclusive("counter").waitTime(Duration.ofSeconds(30)).run(overlap::section));

        assertEquals(0, overlap.violations(), "threads were inside the locked section together");
        assertEquals(THREADS * ITERATIONS, overlap.count(), "updates were lost");
    }

    /** The same section without the lock: proves the test above can fail. */
    @Test
    void withoutTheLockTheSectionRaces() throws Exception {
        contend(overlap::section);

        assertFalse(overlap.exact(), "no race observed without the lock: " + overlap);
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
}
