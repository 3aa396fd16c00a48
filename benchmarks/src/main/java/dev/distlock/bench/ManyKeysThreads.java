package dev.distlock.bench;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The calling threads of {@link ManyKeysDriver}'s two parts: threads that lock a key of their own
 * again and again until a deadline, and a contended round whose callers of a key meet before they
 * ask for its lock.
 */
final class ManyKeysThreads {

    private ManyKeysThreads() {
    }

    /** @return lock + unlock operations completed before the deadline, all threads together */
    static long spin(ManyKeysDriver.Locker locker, String tag, int threads, long millis, CallFailures failures)
            throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        LongAdder ops = new LongAdder();
        long[] deadline = new long[1];
        for (int t = 0; t < threads; t++) {
            String key = tag + ":" + t;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    long count = 0;
                    while (System.nanoTime() < deadline[0]) {
                        try {
                            if (!locker.lock(key, () -> { })) {
                                failures.record("timed out on " + key);
                            }
                            if (System.nanoTime() <= deadline[0]) {
                                count++;
                            }
                        } catch (Exception e) {
                            failures.record(e);
                        }
                    }
                    ops.add(count);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }, "own-key-" + t);
            thread.setDaemon(true);
            thread.start();
        }
        deadline[0] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        start.countDown(); // publishes deadline[0] to the threads
        if (!done.await(millis + 60_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("own-key threads did not stop within a minute after their deadline");
        }
        return ops.sum();
    }

    /** @return critical sections run */
    static long round(ExecutorService pool, ManyKeysDriver.Locker locker, String tag, int keys, int callers, long holdMicros,
                      Duration wait, CallFailures failures, LongAdder violations) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(keys * callers);
        LongAdder sections = new LongAdder();
        long holdNanos = TimeUnit.MICROSECONDS.toNanos(holdMicros);
        for (int k = 0; k < keys; k++) {
            String key = tag + ":" + k;
            AtomicInteger holders = new AtomicInteger();
            CountDownLatch meet = new CountDownLatch(callers);
            Runnable critical = () -> {
                if (holders.incrementAndGet() != 1) {
                    violations.increment();
                }
                pause(holdNanos);
                holders.decrementAndGet();
                sections.increment();
            };
            // The callers of a key are submitted one after the other, so the pool takes them up together.
            for (int c = 0; c < callers; c++) {
                pool.execute(() -> {
                    try {
                        meet.countDown();
                        if (!meet.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                            failures.record("the callers of " + key + " did not meet");
                        }
                        if (!locker.lock(key, critical)) {
                            failures.record("timed out on " + key);
                        }
                    } catch (Exception e) {
                        failures.record(e);
                    } finally {
                        done.countDown();
                    }
                });
            }
        }
        if (!done.await(wait.toMillis() * 2 + 60_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("contended round on " + tag + " did not finish");
        }
        return sections.sum();
    }

    private static void pause(long nanos) {
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
