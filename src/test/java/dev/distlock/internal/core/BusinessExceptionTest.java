package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testkit.backend.OtherOwner;

import dev.distlock.DistributedLocks;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the work throws reaches the caller unchanged, and the lock is released anyway. */
@Timeout(30)
class BusinessExceptionTest {

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final DistributedLocks locks = RedisLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("business")).build();

    @Test
    void uncheckedExceptionPropagatesUnchangedAndReleases() {
        IllegalStateException outOfStock = new IllegalStateException("out of stock");

        IllegalStateException thrown = assertThrows(IllegalStateException.class, () ->
                locks.exclusive("k").run(() -> {
                    throw outOfStock;
                }));

        assertSame(outOfStock, thrown);
        assertEquals(0, thrown.getSuppressed().length, "a clean release adds nothing to the exception");
        assertTrue(OtherOwner.gets(locks.exclusive("k")), "the lock was released");
    }

    @Test
    void checkedExceptionPropagatesUnchangedAndReleases() {
        IOException diskFull = new IOException("disk full");

        IOException thrown = assertThrows(IOException.class, () ->
                locks.exclusive("k").call(() -> {
                    throw diskFull;
                }));

        assertSame(diskFull, thrown);
        assertTrue(OtherOwner.gets(locks.exclusive("k")), "the lock was released");
    }
}
