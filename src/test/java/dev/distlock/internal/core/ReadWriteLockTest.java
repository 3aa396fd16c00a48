package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testkit.backend.OtherOwner;

import dev.distlock.DistributedLocks;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Readers share, writers exclude; write→read downgrade works, read→write upgrade fails at once. */
@Timeout(30)
class ReadWriteLockTest {

    private static final RedissonClient redis = TestRedis.sharedClient();

    private final DistributedLocks locks = RedisLocks.builder(redis)
            .keyPrefix(TestRedis.uniquePrefix("rw")).build();

    @Test
    void readersOverlap() throws Exception {
        // Each reader waits inside its read lock until the other one is inside too.
        CyclicBarrier bothInside = new CyclicBarrier(2);
        Runnable reader = () -> locks.read("catalog").waitTime(Duration.ofSeconds(10)).run(() -> {
            try {
                bothInside.await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("the other reader never got in", e);
            }
        });

        CompletableFuture<Void> first = CompletableFuture.runAsync(reader, OwnThread.EACH);
        CompletableFuture<Void> second = CompletableFuture.runAsync(reader, OwnThread.EACH);

        CompletableFuture.allOf(first, second).get(20, TimeUnit.SECONDS);
    }

    @Test
    void writerExcludesReaders() throws Exception {
        try (OtherOwner writer = OtherOwner.holds(locks.write("catalog"))) {
            assertFalse(OtherOwner.gets(locks.read("catalog")));
        }
        assertTrue(OtherOwner.gets(locks.read("catalog")));
    }

    @Test
    void readerExcludesWriters() throws Exception {
        try (OtherOwner reader = OtherOwner.holds(locks.read("catalog"))) {
            assertFalse(OtherOwner.gets(locks.write("catalog")));
        }
        assertTrue(OtherOwner.gets(locks.write("catalog")));
    }

    @Test
    void writerExcludesWriters() throws Exception {
        try (OtherOwner writer = OtherOwner.holds(locks.write("catalog"))) {
            assertFalse(OtherOwner.gets(locks.write("catalog")));
        }
        assertTrue(OtherOwner.gets(locks.write("catalog")));
    }

    @Test
    void readToWriteUpgradeIsRejectedAtOnce() {
        AtomicBoolean writerRan = new AtomicBoolean();
        AtomicLong upgradeMillis = new AtomicLong(-1);

        IllegalStateException rejected = assertThrows(IllegalStateException.class, () ->
                locks.read("catalog").run(() -> {
                    long start = System.nanoTime();
                    try {
                        locks.write("catalog").waitTime(Duration.ofSeconds(20)).run(() -> writerRan.set(true));
                    } finally {
                        upgradeMillis.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    }
                }));

        assertTrue(rejected.getMessage().contains("upgrading a read lock to a write lock"), rejected.getMessage());
        assertFalse(writerRan.get(), "the write-locked work must not run");
        assertTrue(upgradeMillis.get() < 1_000, "rejected after " + upgradeMillis + " ms instead of at once");
        assertTrue(OtherOwner.gets(locks.write("catalog")), "the read lock was released");
    }

    @Test
    void writeToReadDowngradeIsAllowed() {
        AtomicBoolean otherReaderGot = new AtomicBoolean(true);

        String result = locks.write("catalog").get(() ->
                locks.read("catalog").waitTime(Duration.ZERO).get(() -> {
                    otherReaderGot.set(OtherOwner.gets(locks.read("catalog")));
                    return "read inside write";
                }));

        assertEquals("read inside write", result);
        assertFalse(otherReaderGot.get(), "the write lock still excludes other readers while downgraded");
        assertTrue(OtherOwner.gets(locks.write("catalog")), "everything released afterwards");
    }

    @Test
    void exclusiveAndReadWriteLocksNeverShareAKey() throws Exception {
        try (OtherOwner writer = OtherOwner.holds(locks.write("same"))) {
            assertTrue(OtherOwner.gets(locks.exclusive("same")));
        }
    }
}
