package dev.distlock.twojvm;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import dev.distlock.testkit.ChildJvm;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One of the JVMs that race for a counter in Redis; started by {@link ContenderRun}, never by hand.
 *
 * <p>Each thread repeatedly enters a critical section, guarded as its {@link Guard} says, and
 * inside it (a) claims an "inside" marker in Redis that only one holder may have, (b) increments a
 * counter in Redis by GET, pause, SET, so that two holders at once lose an update, and (c) clears
 * the marker if it is still its own. Both checks live in Redis, so overlaps between JVMs are seen,
 * not only overlaps between threads of one JVM. With distlock, even threads {@code waitForever()}
 * and odd ones wait with a bound, so both ways of acquiring compete for the same lock.
 *
 * <p>Arguments, in order: redis url, key prefix, guard ({@code distlock}, {@code local} or
 * {@code none}), threads, iterations per thread, this JVM's name, pause between GET and SET in
 * microseconds, how long the whole run may take in milliseconds (the JVM halts itself after
 * that), the parent's pid (the JVM halts itself when the parent dies).
 *
 * <p>Prints one line, {@link ContenderResult#PREFIX}{@code name=… calls=… violations=… errors=…
 * elapsedMs=…}, and exits 0; 1 if any call failed, 2 if the run could not start, 3 past its
 * deadline, 4 when its parent died.
 */
public final class Contender {

    static final int EXIT_OK = 0;
    static final int EXIT_CALLS_FAILED = 1;
    static final int EXIT_COULD_NOT_RUN = 2;
    static final int EXIT_DEADLINE = 3;
    static final int EXIT_PARENT_GONE = 4;

    /** Polling "go" every few ms costs nothing and keeps the two JVMs' starts within a few ms. */
    private static final long START_POLL_MILLIS = 2;
    /**
     * For threads that wait with a bound: a lock that cannot be had in this long is a failure to
     * report, not a wait to sit out.
     */
    private static final Duration BOUNDED_LOCK_WAIT = Duration.ofSeconds(60);

    private final String prefix;
    private final Guard guard;
    /** Used only by {@link Guard#LOCAL}. */
    private final ReentrantLock localLock = new ReentrantLock();
    private final int threads;
    private final int iterations;
    private final String name;
    private final long pauseNanos;
    private final long deadlineMillis;

    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong violations = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();

    private Contender(String[] args) {
        if (args.length != 9) {
            throw new IllegalArgumentException("expected 9 arguments: redisUrl prefix guard threads iterations "
                    + "name pauseMicros deadlineMillis parentPid, got " + List.of(args));
        }
        this.prefix = args[1];
        this.guard = Guard.fromArgument(args[2]);
        this.threads = Integer.parseInt(args[3]);
        this.iterations = Integer.parseInt(args[4]);
        this.name = args[5];
        this.pauseNanos = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[6]));
        this.deadlineMillis = Long.parseLong(args[7]);
    }

    public static void main(String[] args) {
        Contender contender;
        try {
            contender = new Contender(args);
            ChildJvm.haltWhenParentDies(Long.parseLong(args[8]), EXIT_PARENT_GONE);
            ChildJvm.haltAfter(contender.deadlineMillis, EXIT_DEADLINE);
        } catch (RuntimeException e) {
            e.printStackTrace();
            System.exit(EXIT_COULD_NOT_RUN);
            return;
        }
        RedissonClient client;
        try {
            client = connect(args[0]);
        } catch (RuntimeException e) {
            System.err.println("could not connect to " + args[0]);
            e.printStackTrace();
            System.exit(EXIT_COULD_NOT_RUN);
            return;
        }
        int exit;
        try {
            exit = contender.run(client);
        } catch (Exception e) {
            e.printStackTrace();
            exit = EXIT_COULD_NOT_RUN;
        } finally {
            client.shutdown();
        }
        System.exit(exit);
    }

    private int run(RedissonClient client) throws InterruptedException {
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).build();
        RBucket<String> counter = client.getBucket(ContenderKeys.counter(prefix), StringCodec.INSTANCE);
        RBucket<String> inside = client.getBucket(ContenderKeys.inside(prefix), StringCodec.INSTANCE);

        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>(threads);
        for (int t = 0; t < threads; t++) {
            String threadName = name + "-" + t;
            // Both ways of waiting take part, so they must exclude each other too.
            boolean waitsForever = t % 2 == 0;
            Thread worker = new Thread(() -> work(locks, waitsForever, counter, inside, threadName, go), threadName);
            workers.add(worker);
            worker.start();
        }

        client.getAtomicLong(ContenderKeys.ready(prefix)).incrementAndGet();
        RBucket<String> goSignal = client.getBucket(ContenderKeys.go(prefix), StringCodec.INSTANCE);
        while (goSignal.get() == null) {
            Thread.sleep(START_POLL_MILLIS);
        }
        long start = System.nanoTime();
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        Throwable error = firstError.get();
        if (error != null) {
            StringWriter trace = new StringWriter();
            error.printStackTrace(new PrintWriter(trace));
            System.err.println("first of " + errors.get() + " failed calls: " + trace);
        }
        System.out.println(new ContenderResult(name, calls.get(), violations.get(), errors.get(), elapsedMillis).line());
        System.out.flush();
        return errors.get() == 0 ? EXIT_OK : EXIT_CALLS_FAILED;
    }

    private void work(DistributedLocks locks, boolean waitsForever, RBucket<String> counter,
                      RBucket<String> inside, String threadName, CountDownLatch go) {
        try {
            go.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (int i = 0; i < iterations; i++) {
            String token = threadName + "#" + i;
            try {
                switch (guard) {
                    case DISTLOCK -> {
                        DistributedLocks.LockCall lock = locks.exclusive(ContenderKeys.LOCK);
                        (waitsForever ? lock.waitForever() : lock.waitTime(BOUNDED_LOCK_WAIT))
                                .run(() -> criticalSection(counter, inside, token));
                    }
                    case LOCAL -> {
                        localLock.lock();
                        try {
                            criticalSection(counter, inside, token);
                        } finally {
                            localLock.unlock();
                        }
                    }
                    case NONE -> criticalSection(counter, inside, token);
                }
                calls.incrementAndGet();
            } catch (RuntimeException | Error e) {
                errors.incrementAndGet();
                firstError.compareAndSet(null, e);
            }
        }
    }

    private void criticalSection(RBucket<String> counter, RBucket<String> inside, String token) {
        boolean alone = inside.setIfAbsent(token);
        if (!alone) {
            violations.incrementAndGet();
        }
        String value = counter.get();
        long current = value == null ? 0 : Long.parseLong(value);
        LockSupport.parkNanos(pauseNanos);
        counter.set(Long.toString(current + 1));
        // Someone who cleared or replaced our marker while we were inside was inside with us.
        if (alone && !inside.compareAndSet(token, null)) {
            violations.incrementAndGet();
        }
    }

    private static RedissonClient connect(String url) {
        Config config = new Config();
        // Small pools: two of these JVMs share two cores with the test and Redis.
        config.setThreads(4).setNettyThreads(4);
        config.useSingleServer()
                .setAddress(url)
                .setConnectionMinimumIdleSize(4)
                .setConnectionPoolSize(16)
                .setSubscriptionConnectionMinimumIdleSize(1);
        return Redisson.create(config);
    }

}
