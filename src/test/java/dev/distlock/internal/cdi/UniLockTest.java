package dev.distlock.internal.cdi;

import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import dev.distlock.OnTimeout;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RLock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A locked method returning Mutiny's {@code Uni} is held until each subscription's {@code Uni}
 * ends (issue 45): a storm of subscriptions on a few keys never has two inside one key's region,
 * where its unlocked twin does; failure and cancellation release once; a {@code Uni} nobody
 * subscribes to holds nothing. Through the portable extension here, through the build compatible
 * one in {@link UniLockLiteTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UniLockTest {

    /** Sized as the review that found the gap: 196 of 200 calls overlapped without the lock. */
    private static final int STORM = 400;
    private static final int TWIN_STORM = 200;
    private static final int KEYS = 4;
    private static final int CALLERS = 64;
    private static final long SLACK_SECONDS = 30;

    /** Counts who is inside each key's region, and every time a second one came in. */
    @ApplicationScoped
    public static class Regions {
        private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        private final AtomicInteger overlaps = new AtomicInteger();

        int overlaps() {
            return overlaps.get();
        }

        void enter(String key) {
            if (inside.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
        }

        void leave(String key) {
            inside.get(key).decrementAndGet();
        }
    }

    /** Releases of each lock, by its name in the store: exactly one per subscription that held it. */
    @ApplicationScoped
    public static class Releases implements LockListener {
        private final Map<String, AtomicInteger> released = new ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> acquired = new ConcurrentHashMap<>();

        @Override
        public void acquired(String key, LockMode mode, long waitNanos) {
            acquired.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void released(String key, LockMode mode, long heldNanos) {
            released.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        }

        int released(String key) {
            return released.getOrDefault(key, new AtomicInteger()).get();
        }

        int acquired(String key) {
            return acquired.getOrDefault(key, new AtomicInteger()).get();
        }
    }

    @ApplicationScoped
    public static class Tasks {
        @Inject
        Regions regions;
        private final AtomicInteger runs = new AtomicInteger();
        /** The threads the method itself ran on. */
        private final Set<String> ranOn = ConcurrentHashMap.newKeySet();

        Set<String> ranOn() {
            return Set.copyOf(ranOn);
        }

        void forgetWhereItRan() {
            ranOn.clear();
        }

        @Locked(value = "uni:{key}", waitTime = 60_000)
        public Uni<String> work(String key) {
            return region(key);
        }

        /** The twin: the same work, no lock. */
        public Uni<String> workUnlocked(String key) {
            return region(key);
        }

        /** Enters at subscription, leaves a millisecond later on a timer's thread: the work outlives the method. */
        private Uni<String> region(String key) {
            runs.incrementAndGet();
            ranOn.add(Thread.currentThread().getName());
            return Uni.createFrom().item(key)
                    .invoke(() -> regions.enter(key))
                    .onItem().delayIt().by(Duration.ofMillis(1))
                    .invoke(() -> regions.leave(key));
        }

        /** Ends when the test completes {@code done}. */
        @Locked(value = "uni-until:{key}", waitTime = 10_000)
        public Uni<String> until(String key, CompletableFuture<String> done) {
            runs.incrementAndGet();
            return Uni.createFrom().completionStage(done);
        }

        @Locked("uni-failing:{key}")
        public Uni<String> failing(String key, RuntimeException failure) {
            runs.incrementAndGet();
            return Uni.createFrom().item(key).onItem().delayIt().by(Duration.ofMillis(5)).onItem().failWith(() -> failure);
        }

        @Locked("uni-throwing:{key}")
        public Uni<String> throwing(String key, RuntimeException failure) {
            runs.incrementAndGet();
            throw failure;
        }

        @Locked(value = "uni-busy:{key}", waitTime = 100)
        public Uni<String> briefly(String key) {
            runs.incrementAndGet();
            return Uni.createFrom().item(key);
        }

        @Locked(value = "uni-busy:{key}", waitTime = 100, onTimeout = OnTimeout.SKIP)
        public Uni<String> brieflyOrSkip(String key) {
            runs.incrementAndGet();
            return Uni.createFrom().item(key);
        }

        int runs() {
            return runs.get();
        }
    }

    private final String prefix = TestRedis.uniquePrefix(getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT));
    private DistlockWeld weld;
    private Tasks tasks;
    private Regions regions;
    private Releases releases;
    private final ExecutorService callers = Executors.newFixedThreadPool(CALLERS);

    /** The container under test: the portable extension here. */
    protected DistlockWeld start(Map<String, String> properties, Class<?>... beans) {
        return DistlockWeld.start(properties, beans);
    }

    @BeforeAll
    void startContainer() {
        weld = start(Map.of("distlock.key-prefix", prefix), TestRedisClient.class, Regions.class, Releases.class, Tasks.class);
        tasks = weld.bean(Tasks.class);
        regions = weld.bean(Regions.class);
        releases = weld.bean(Releases.class);
    }

    @AfterAll
    void stop() {
        callers.shutdownNow();
        Infrastructure.resetCanCallerThreadBeBlockedSupplier();
        if (weld != null) {
            weld.close();
        }
    }

    @Test
    void aStormOfSubscriptionsNeverHasTwoInsideOneKey() throws Exception {
        int overlaps = storm(STORM, key -> tasks.work(key));
        System.out.println(getClass().getSimpleName() + ": locked Uni, " + STORM + " subscriptions on " + KEYS + " keys from "
                + CALLERS + " threads: " + overlaps + " overlaps");
        assertEquals(0, overlaps, "two subscriptions of one key were inside at once");
    }

    /** The twin: the same storm through the unlocked method overlaps, so the count would see it. */
    @Test
    void withoutTheLockTheSameStormOverlaps() throws Exception {
        int overlaps = storm(TWIN_STORM, key -> tasks.workUnlocked(key));
        System.out.println(getClass().getSimpleName() + ": unlocked twin, " + TWIN_STORM + " subscriptions: " + overlaps + " overlaps");
        assertTrue(overlaps > 0, "the unlocked twin showed no overlap");
    }

    @Test
    void theLockIsHeldWhileTheUniRunsAndReleasedOnceWhenItEnds() throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        CompletableFuture<String> item = tasks.until("held", done).subscribeAsCompletionStage();
        assertTrue(Probe.isLocked(lockKey("uni-until:held")), "the method returned its Uni, whose work is not done: still locked");
        done.complete("ok");
        assertEquals("ok", item.get(SLACK_SECONDS, TimeUnit.SECONDS));
        assertFalse(Probe.isLocked(lockKey("uni-until:held")), "released before the subscriber got the item");
        assertEquals(1, releases.released(lockKey("uni-until:held")));
    }

    @Test
    void aUniNobodySubscribesToHoldsNothingAndRunsNothing() throws Exception {
        int runs = tasks.runs();
        Uni<String> never = tasks.until("never", new CompletableFuture<>());
        Thread.sleep(200);
        assertEquals(runs, tasks.runs(), "the method ran before anything subscribed");
        assertFalse(Probe.exists(lockKey("uni-until:never")), "a Uni nobody subscribed to took its lock");
        assertEquals(0, releases.acquired(lockKey("uni-until:never")));
        assertTrue(never != null);
    }

    @Test
    void eachSubscriptionRunsTheMethodUnderTheLockOnce() throws Exception {
        int runs = tasks.runs();
        Uni<String> uni = tasks.work("again");
        assertEquals("again", uni.await().atMost(Duration.ofSeconds(SLACK_SECONDS)));
        assertEquals("again", uni.await().atMost(Duration.ofSeconds(SLACK_SECONDS)));
        assertEquals(runs + 2, tasks.runs());
        assertEquals(2, releases.acquired(lockKey("uni:again")));
        assertEquals(2, releases.released(lockKey("uni:again")));
    }

    /** The interceptor chain proceeds again for each subscription, from many threads at once (Weld's, here; ArC's on Quarkus). */
    @Test
    void oneUniSubscribedFromManyThreadsAtOnceRunsTheMethodUnderTheLockEachTime() throws Exception {
        Uni<String> shared = tasks.work("shared");
        int runs = tasks.runs();
        int before = regions.overlaps();
        List<CompletableFuture<Void>> subscriptions = new ArrayList<>();
        for (int i = 0; i < TWIN_STORM; i++) {
            subscriptions.add(CompletableFuture.runAsync(() -> assertEquals("shared", shared.await().atMost(Duration.ofSeconds(60))),
                    callers));
        }
        CompletableFuture.allOf(subscriptions.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        assertEquals(runs + TWIN_STORM, tasks.runs());
        assertEquals(0, regions.overlaps() - before);
        assertEquals(TWIN_STORM, releases.released(lockKey("uni:shared")), "each subscription released its hold once");
    }

    @Test
    void aFailedUniReleasesOnceAndKeepsItsFailure() {
        IllegalStateException failure = new IllegalStateException("out of stock");
        Throwable thrown = assertThrows(IllegalStateException.class,
                () -> tasks.failing("failed", failure).await().atMost(Duration.ofSeconds(SLACK_SECONDS)));
        assertSame(failure, thrown);
        assertFalse(Probe.isLocked(lockKey("uni-failing:failed")));
        assertEquals(1, releases.released(lockKey("uni-failing:failed")));
    }

    @Test
    void aMethodThatThrowsReleasesOnceAndTheUniFailsWithItsException() {
        IllegalArgumentException failure = new IllegalArgumentException("no such item");
        Uni<String> uni = tasks.throwing("thrown", failure);
        assertSame(failure, assertThrows(IllegalArgumentException.class, () -> uni.await().atMost(Duration.ofSeconds(SLACK_SECONDS))));
        assertFalse(Probe.isLocked(lockKey("uni-throwing:thrown")));
        assertEquals(1, releases.released(lockKey("uni-throwing:thrown")));
    }

    /** Cancelling does not stop work already under way: the lock stays until it ends, then goes once. */
    @Test
    void aCancelledSubscriptionKeepsTheLockUntilItsWorkEnds() throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        AtomicReference<Object> got = new AtomicReference<>();
        Cancellable subscription = tasks.until("cancelled", done).subscribe().with(got::set, got::set);
        assertTrue(Probe.isLocked(lockKey("uni-until:cancelled")));
        subscription.cancel();
        Thread.sleep(200);
        assertTrue(Probe.isLocked(lockKey("uni-until:cancelled")), "released while the cancelled subscription's work still ran");
        assertEquals(0, releases.released(lockKey("uni-until:cancelled")));
        done.complete("late");
        awaitUnlocked(lockKey("uni-until:cancelled"));
        Thread.sleep(100);
        assertEquals(1, releases.released(lockKey("uni-until:cancelled")));
        assertNull(got.get(), "a cancelled subscriber got an outcome");
    }

    /** A subscriber that gave up while its subscription waited for the lock: the method never runs, the lock goes back at once. */
    @Test
    void aSubscriptionCancelledWhileWaitingNeverRunsTheMethod() throws Exception {
        String key = lockKey("uni-until:waiting");
        RLock other = Probe.client().getLock(key);
        other.lock();
        int runs = tasks.runs();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        try {
            callers.submit(() -> tasks.until("waiting", CompletableFuture.completedFuture("ran"))
                    .ifNoItem().after(Duration.ofMillis(200)).fail()
                    .subscribe().with(item -> outcome.complete(null), outcome::complete));
            assertInstanceOf(TimeoutException.class, outcome.get(SLACK_SECONDS, TimeUnit.SECONDS));
        } finally {
            other.unlock();
        }
        awaitAcquired(key);
        awaitUnlocked(key);
        Thread.sleep(100);
        assertEquals(runs, tasks.runs(), "the method ran for a subscriber that had gone");
        assertEquals(1, releases.released(key));
    }

    @Test
    void aTimeoutFailsTheUniWithoutRunningTheMethod() {
        String key = lockKey("uni-busy:taken");
        RLock other = Probe.client().getLock(key);
        other.lock();
        try {
            int runs = tasks.runs();
            assertThrows(LockTimeoutException.class, () -> tasks.briefly("taken").await().atMost(Duration.ofSeconds(SLACK_SECONDS)));
            assertNull(tasks.brieflyOrSkip("taken").await().atMost(Duration.ofSeconds(SLACK_SECONDS)), "SKIP: a null item");
            assertEquals(runs, tasks.runs());
        } finally {
            other.unlock();
        }
    }

    /**
     * Where Mutiny says the subscribing thread must not block (an event loop), the subscription
     * returns at once: the lock is waited for on a worker. The storm still never overlaps.
     */
    @Test
    void onAThreadThatMustNotBlockTheWaitMovesToAWorker() throws Exception {
        Infrastructure.setCanCallerThreadBeBlockedSupplier(() -> !Thread.currentThread().getName().startsWith("test-loop-"));
        tasks.forgetWhereItRan();
        AtomicInteger loops = new AtomicInteger();
        ExecutorService loop = Executors.newFixedThreadPool(2, task -> new Thread(task, "test-loop-" + loops.incrementAndGet()));
        try {
            int before = regions.overlaps();
            AtomicLong longestSubscribe = new AtomicLong();
            List<CompletableFuture<String>> items = new ArrayList<>();
            for (int i = 0; i < STORM; i++) {
                String key = "loop-" + (i % KEYS);
                CompletableFuture<String> item = new CompletableFuture<>();
                items.add(item);
                loop.execute(() -> {
                    long started = System.nanoTime();
                    tasks.work(key).subscribe().with(item::complete, item::completeExceptionally);
                    longestSubscribe.accumulateAndGet(System.nanoTime() - started, Math::max);
                });
            }
            CompletableFuture.allOf(items.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
            int overlaps = regions.overlaps() - before;
            long longestMillis = TimeUnit.NANOSECONDS.toMillis(longestSubscribe.get());
            System.out.println(getClass().getSimpleName() + ": locked Uni subscribed on 2 threads that must not block, " + STORM
                    + " subscriptions on " + KEYS + " keys: " + overlaps + " overlaps, longest subscribe " + longestMillis + " ms");
            assertEquals(0, overlaps);
            assertTrue(longestMillis < 1_000, "a subscription blocked its thread for " + longestMillis + " ms");
            assertTrue(tasks.ranOn().stream().noneMatch(thread -> thread.startsWith("test-loop-")),
                    "without a Vert.x context the method runs on the worker that waited: " + tasks.ranOn());
        } finally {
            Infrastructure.resetCanCallerThreadBeBlockedSupplier();
            loop.shutdownNow();
        }
    }

    /**
     * On a Vert.x event loop, as Quarkus runs a reactive endpoint: the lock is waited for on a
     * worker, then the method runs back on the subscriber's context (its event loop), where the
     * subscriber gets the item too; no subscription holds its event loop up while it waits.
     */
    @Test
    void onAVertxEventLoopTheMethodRunsOnTheSubscribersContextAndTheLoopNeverWaits() throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        // What Quarkus tells Mutiny: an event loop must not block.
        Infrastructure.setCanCallerThreadBeBlockedSupplier(() -> !io.vertx.core.Context.isOnEventLoopThread());
        tasks.forgetWhereItRan();
        try {
            int before = regions.overlaps();
            AtomicLong longestSubscribe = new AtomicLong();
            AtomicInteger elsewhere = new AtomicInteger();
            List<CompletableFuture<String>> items = new ArrayList<>();
            for (int i = 0; i < STORM; i++) {
                String key = "vertx-" + (i % KEYS);
                CompletableFuture<String> item = new CompletableFuture<>();
                items.add(item);
                io.vertx.core.Context request = vertx.getOrCreateContext();
                request.runOnContext(ignored -> {
                    long started = System.nanoTime();
                    tasks.work(key).subscribe().with(value -> {
                        if (Vertx.currentContext() != request) {
                            elsewhere.incrementAndGet();
                        }
                        item.complete(value);
                    }, item::completeExceptionally);
                    longestSubscribe.accumulateAndGet(System.nanoTime() - started, Math::max);
                });
            }
            CompletableFuture.allOf(items.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
            int overlaps = regions.overlaps() - before;
            long longestMillis = TimeUnit.NANOSECONDS.toMillis(longestSubscribe.get());
            System.out.println(getClass().getSimpleName() + ": locked Uni subscribed on Vert.x event loops, " + STORM
                    + " subscriptions on " + KEYS + " keys: " + overlaps + " overlaps, longest subscribe " + longestMillis
                    + " ms, method ran on " + tasks.ranOn());
            assertEquals(0, overlaps);
            assertTrue(longestMillis < 1_000, "a subscription held its event loop up for " + longestMillis + " ms");
            assertTrue(tasks.ranOn().stream().allMatch(thread -> thread.startsWith("vert.x-eventloop-thread-")),
                    "the method ran off its subscriber's event loop: " + tasks.ranOn());
            assertEquals(0, elsewhere.get(), "subscribers got their item off their own context");
        } finally {
            Infrastructure.resetCanCallerThreadBeBlockedSupplier();
            vertx.close().toCompletionStage().toCompletableFuture().get(SLACK_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** {@code calls} subscriptions over {@link #KEYS} keys from {@link #CALLERS} threads; @return overlaps counted meanwhile */
    private int storm(int calls, java.util.function.Function<String, Uni<String>> method) throws Exception {
        int before = regions.overlaps();
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            String key = "storm-" + (i % KEYS);
            sent.add(CompletableFuture.runAsync(() -> assertEquals(key, method.apply(key).await().atMost(Duration.ofSeconds(60))), callers));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        return regions.overlaps() - before;
    }

    private void awaitUnlocked(String redisKey) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SLACK_SECONDS);
        while (Probe.isLocked(redisKey)) {
            assertTrue(System.nanoTime() < deadline, redisKey + " was never released");
            Thread.sleep(10);
        }
    }

    private void awaitAcquired(String redisKey) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SLACK_SECONDS);
        while (releases.acquired(redisKey) == 0) {
            assertTrue(System.nanoTime() < deadline, redisKey + " was never acquired");
            Thread.sleep(10);
        }
    }

    private String lockKey(String key) {
        return prefix + ":lock:" + key;
    }
}
