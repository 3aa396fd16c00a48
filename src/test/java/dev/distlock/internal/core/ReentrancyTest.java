package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testkit.backend.OtherOwner;

import dev.distlock.DistributedLocks;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Nested calls on the same key by the same invocation chain reenter; other owners still wait. */
@Timeout(30)
class ReentrancyTest {

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final DistributedLocks locks = RedisLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("reentry")).build();

    @Test
    void nestedCallOnTheSameKeyReenters() {
        String result = locks.exclusive("k").get(() ->
                locks.exclusive("k").waitTime(Duration.ZERO).get(() -> "inner ran"));

        assertEquals("inner ran", result);
    }

    @Test
    void anotherOwnerCannotTakeItWhileNested() {
        List<Boolean> otherGot = new ArrayList<>();
        locks.exclusive("k").run(() -> {
            locks.exclusive("k").waitTime(Duration.ZERO).run(() ->
                    otherGot.add(OtherOwner.gets(locks.exclusive("k"))));
            // the inner call has returned; the outer one still holds the lock
            otherGot.add(OtherOwner.gets(locks.exclusive("k")));
        });

        assertEquals(List.of(false, false), otherGot, "[inside the nested call, after it returned]");
        assertTrue(OtherOwner.gets(locks.exclusive("k")), "free once the outermost call returned");
    }
}
