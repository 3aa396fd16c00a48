package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testing.EngineAccess;

import dev.distlock.DistributedLocks;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** With Redis gone, a locked call fails fast with a clear error and never runs unlocked. */
@Timeout(60)
class RedisDownTest {

    private static final Duration WAIT = Duration.ofMillis(500);
    private static final Duration ANSWER_GRACE = Duration.ofSeconds(1);

    @Test
    void aCallFailsFastWithoutRunning() throws Exception {
        int port = Ports.free();
        RedisProcess server = RedisProcess.start(port);
        RedissonClient redis = TestRedis.newClient(config -> config.useSingleServer()
                .setAddress("redis://127.0.0.1:" + port)
                .setConnectTimeout(500)
                .setTimeout(500)
                .setRetryAttempts(0));
        try {
            DistributedLocks locks = RedisLocks.builder(redis)
                    .keyPrefix(TestRedis.uniquePrefix("down"))
                    .answerGrace(ANSWER_GRACE)
                    .build();
            locks.exclusive("k").run(() -> { }); // works while Redis is up
            server.close();
            AtomicBoolean ran = new AtomicBoolean();

            long start = System.nanoTime();
            LockServiceUnavailableException e = assertThrows(LockServiceUnavailableException.class,
                    () -> locks.exclusive("k").waitTime(WAIT).run(() -> ran.set(true)));
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertFalse(ran.get(), "the work ran without a lock");
            assertTrue(e.getMessage().contains(EngineAccess.lockName(locks, "k", false)) && e.getMessage().contains("did not run"),
                    e.getMessage());
            assertTrue(tookMillis < WAIT.plus(ANSWER_GRACE).toMillis() + 3_000, "failed only after " + tookMillis + " ms");
        } finally {
            redis.shutdown();
            server.close();
        }
    }
}
