package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.DistributedLocks;
import dev.distlock.LockLostException;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.OverlapDetector;
import dev.distlock.testkit.TestRedis;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Local contenders for one key queue inside the JVM; the queue's bookkeeping must vanish once
 * nothing is locked, whatever way the calls ended — or a long-running JVM leaks one entry per key.
 */
class LocalQueueTest {

    private static final RedissonClient client = TestRedis.sharedClient();

    @Test
    void queuesVanishAfterManyKeysAndManyContenders() throws Exception {
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("queue")).build();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        OverlapDetector overlap = new OverlapDetector(0);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                String key = "k" + (i % 40);
                calls.add(pool.submit(() -> locks.exclusive(key, "shared").waitForever().run(overlap::section)));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, overlap.violations(), "every call also took 'shared', so none may overlap");
        assertEquals(0, EngineAccess.executor(locks).localQueueCount());
    }

    @Test
    void timeoutsLostLeasesAndStagesLeaveNoQueueBehind() throws Exception {
        String prefix = TestRedis.uniquePrefix("queue");
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).build();
        DistributedLocks other = RedisLocks.builder(client).keyPrefix(prefix).build();

        CompletableFuture<Void> held = new CompletableFuture<>();
        CompletableFuture<Void> holding = CompletableFuture.runAsync(() -> other.exclusive("t").run(held::join));
        Thread.sleep(300);
        assertThrows(LockTimeoutException.class, () -> locks.exclusive("t").waitTime(Duration.ofMillis(100)).run(() -> { }));
        held.complete(null);
        holding.get(10, TimeUnit.SECONDS);

        assertThrows(LockLostException.class, () -> locks.exclusive("lease").leaseTime(Duration.ofMillis(100)).run(() -> Waits.sleep(400)));

        CompletableFuture<String> later = new CompletableFuture<>();
        CompletableFuture<String> stage = locks.exclusive("stage").stage(() -> later).toCompletableFuture();
        CompletableFuture.runAsync(() -> later.complete("done"));
        assertEquals("done", stage.get(10, TimeUnit.SECONDS));

        assertEquals(0, EngineAccess.executor(locks).localQueueCount());
        assertEquals(0, EngineAccess.executor(other).localQueueCount());
    }
}
