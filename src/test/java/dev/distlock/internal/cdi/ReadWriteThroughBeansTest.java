package dev.distlock.internal.cdi;

import dev.distlock.LockTimeoutException;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import dev.distlock.testing.DistlockWeldTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.weld.junit5.auto.AddBeanClasses;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Semantics 5: {@code @ReadLocked} and {@code @WriteLocked} on the same key share one read-write lock. */
@DistlockWeldTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@AddBeanClasses(ReadWriteThroughBeansTest.Catalog.class)
class ReadWriteThroughBeansTest {

    /** Generous: two shared cores, and a reader that never gets in would time out long before. */
    private static final long SLACK_SECONDS = 10;

    @ApplicationScoped
    public static class Catalog {
        @ReadLocked("catalog:{id}")
        public <T> T read(String id, Callable<T> body) throws Exception {
            return body.call();
        }

        @WriteLocked("catalog:{id}")
        public <T> T write(String id, Callable<T> body) throws Exception {
            return body.call();
        }

        @ReadLocked(value = "catalog:{id}", waitTime = 300)
        public <T> T readBriefly(String id, Callable<T> body) throws Exception {
            return body.call();
        }

        @WriteLocked(value = "catalog:{id}", waitTime = 300)
        public <T> T writeBriefly(String id, Callable<T> body) throws Exception {
            return body.call();
        }
    }

    @Inject
    Catalog catalog;
    @Inject
    DistlockSetup distlock;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterAll
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void readersOverlap() throws Exception {
        // Each reader waits inside until the other is inside too: only possible if both hold the read lock.
        CyclicBarrier bothInside = new CyclicBarrier(2);
        Callable<Boolean> reader = () -> catalog.read("overlap", () -> {
            bothInside.await(SLACK_SECONDS, TimeUnit.SECONDS);
            return Probe.isReadLocked(rwKey("catalog:overlap"));
        });
        Future<Boolean> first = threads.submit(reader);
        Future<Boolean> second = threads.submit(reader);
        assertTrue(first.get(2 * SLACK_SECONDS, TimeUnit.SECONDS));
        assertTrue(second.get(2 * SLACK_SECONDS, TimeUnit.SECONDS));
        assertFalse(Probe.exists(rwKey("catalog:overlap")));
    }

    @Test
    void writerWaitsWhileAReaderIsInside() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        Future<Boolean> reader = threads.submit(() -> catalog.read("excl", () -> {
            inside.countDown();
            return leave.await(2 * SLACK_SECONDS, TimeUnit.SECONDS);
        }));
        try {
            assertTrue(inside.await(SLACK_SECONDS, TimeUnit.SECONDS));
            assertThrows(LockTimeoutException.class, () -> catalog.writeBriefly("excl", () -> "written"));
        } finally {
            leave.countDown();
        }
        assertTrue(reader.get(SLACK_SECONDS, TimeUnit.SECONDS));
        assertEquals("written", catalog.writeBriefly("excl", () -> "written"), "free once the reader left");
    }

    @Test
    void readerWaitsWhileAWriterIsInside() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        Future<Boolean> writer = threads.submit(() -> catalog.write("excl2", () -> {
            inside.countDown();
            return leave.await(2 * SLACK_SECONDS, TimeUnit.SECONDS);
        }));
        try {
            assertTrue(inside.await(SLACK_SECONDS, TimeUnit.SECONDS));
            assertThrows(LockTimeoutException.class, () -> catalog.readBriefly("excl2", () -> "read"));
        } finally {
            leave.countDown();
        }
        assertTrue(writer.get(SLACK_SECONDS, TimeUnit.SECONDS));
        assertEquals("read", catalog.readBriefly("excl2", () -> "read"));
    }

    @Test
    void readToWriteUpgradeIsRejectedAtOnce() {
        long start = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> catalog.read("upgrade", () -> catalog.write("upgrade", () -> "never")));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 2_500, "rejected at once, not after the 5 s waitTime: " + millis + " ms");
        assertTrue(e.getMessage().contains("upgrading a read lock to a write lock"), e.getMessage());
        assertFalse(Probe.exists(rwKey("catalog:upgrade")), "the read lock was released");
    }

    @Test
    void writeToReadDowngradeIsAllowed() throws Exception {
        String key = rwKey("catalog:downgrade");
        assertTrue(catalog.write("downgrade", () -> catalog.read("downgrade", () -> Probe.isWriteLocked(key))));
        assertFalse(Probe.exists(key));
    }

    private String rwKey(String key) {
        return distlock.settings().keyPrefix() + ":rw:" + key;
    }
}
