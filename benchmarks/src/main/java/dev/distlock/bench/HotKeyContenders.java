package dev.distlock.bench;

import dev.distlock.DistributedLocks;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/** T threads of one child, all locking one key, each section one INCR inside the marker check. */
final class HotKeyContenders {

    private final String impl;
    private final DistributedLocks locks;
    private final String key;
    private final RLock rawLock;
    private final RFencedLock rawFencedLock;
    private final RAtomicLong counter;
    private final InsideMarker inside;
    private final int slot;
    private final int threads;
    private final long[] opsPerThread;
    private final long[] latePerThread;
    private final long[] violationsPerThread;
    private final long[][] waitsPerThread;
    private final int[] waitCounts;

    HotKeyContenders(String impl, RedissonClient redisson, DistributedLocks locks, String key, InsideMarker inside,
                     int slot, int threads) {
        this.impl = impl;
        this.locks = locks;
        this.key = key;
        this.rawLock = redisson.getLock("bench-raw:" + key);
        this.rawFencedLock = redisson.getFencedLock("bench-raw-fenced:" + key);
        this.counter = redisson.getAtomicLong(key + ":count");
        this.inside = inside;
        this.slot = slot;
        this.threads = threads;
        this.opsPerThread = new long[threads];
        this.latePerThread = new long[threads];
        this.violationsPerThread = new long[threads];
        this.waitsPerThread = new long[threads][];
        this.waitCounts = new int[threads];
    }

    void run(long millis, boolean record) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(threads);
        long endNanos = System.nanoTime() + millis * 1_000_000L;
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                try {
                    contend(index, endNanos, record);
                } finally {
                    done.countDown();
                }
            }, "hot-" + t);
            thread.start();
        }
        done.await();
    }

    private void contend(int index, long endNanos, boolean record) {
        long token = ((long) (inside.jvm() + 1) << 32) | (index + 1);
        long[] waits = new long[record ? 4096 : 1];
        int count = 0;
        long ops = 0;
        long late = 0;
        long[] violations = new long[1];
        Runnable critical = () -> {
            if (!inside.enter(slot, token)) {
                violations[0]++;
            }
            counter.incrementAndGet();
            if (!inside.exit(slot, token)) {
                violations[0]++;
            }
        };
        while (System.nanoTime() < endNanos) {
            long before = System.nanoTime();
            long[] acquiredAt = new long[1];
            switch (impl) {
                case "raw" -> {
                    rawLock.lock();
                    try {
                        acquiredAt[0] = System.nanoTime();
                        critical.run();
                    } finally {
                        rawLock.unlock();
                    }
                }
                case "raw-fenced" -> {
                    if (rawFencedLock.lockAndGetToken() == null) {
                        throw new IllegalStateException("RFencedLock gave no token");
                    }
                    try {
                        acquiredAt[0] = System.nanoTime();
                        critical.run();
                    } finally {
                        rawFencedLock.unlock();
                    }
                }
                case "distlock" -> locks.exclusive(key).waitForever().run(() -> {
                    acquiredAt[0] = System.nanoTime();
                    critical.run();
                });
                case "distlock-fenced" -> locks.exclusive(key).fenced().waitForever().run(() -> {
                    acquiredAt[0] = System.nanoTime();
                    locks.context().fencingToken().orElseThrow();
                    critical.run();
                });
                default -> throw new IllegalArgumentException("impl must be raw, raw-fenced, distlock or distlock-fenced, was " + impl);
            }
            if (record) {
                waits = record(waits, count++, acquiredAt[0] - before);
            }
            if (System.nanoTime() <= endNanos) {
                ops++;
            } else {
                late++; // finished after the deadline: in the counter, not in the throughput
            }
        }
        opsPerThread[index] = ops;
        latePerThread[index] = late;
        violationsPerThread[index] = violations[0];
        waitsPerThread[index] = waits;
        waitCounts[index] = count;
    }

    long ops() {
        return Arrays.stream(opsPerThread).sum();
    }

    long late() {
        return Arrays.stream(latePerThread).sum();
    }

    long violations() {
        return Arrays.stream(violationsPerThread).sum();
    }

    void writeWaits(DataOutputStream out) throws IOException {
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < waitCounts[t]; i++) {
                out.writeLong(waitsPerThread[t][i]);
            }
        }
    }

    private static long[] record(long[] waits, int at, long nanos) {
        if (at >= waits.length) {
            waits = Arrays.copyOf(waits, waits.length * 2);
        }
        waits[at] = nanos;
        return waits;
    }
}
