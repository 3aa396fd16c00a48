package dev.distlock.internal.cdi;

import dev.distlock.DistributedLocks;
import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.LogCapture;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.TestRedis;
import dev.distlock.transactions.Narayana;
import io.smallrye.config.inject.ConfigExtension;
import io.smallrye.faulttolerance.FaultToleranceExtension;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.InterceptorBinding;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.faulttolerance.Bulkhead;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.junit.jupiter.api.Test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code @Locked} beside MicroProfile Fault Tolerance (SmallRye's, as WildFly and Quarkus ship it),
 * with Narayana's {@code @Transactional} and a real Redis. By default Fault Tolerance runs inside
 * the lock ({@code mp.fault.tolerance.interceptor.priority} 4010 against the lock's 100): a retry
 * never sees a lock timeout, and naming one is refused at deployment. With Fault Tolerance's
 * priority below the lock's, each annotation acts on the lock as a user expects: a retry takes the
 * lock again, a timeout ends a wait or a section with the lock given back once, a bulkhead turns
 * callers away before they wait, a fallback answers for a lock not had.
 */
class FaultToleranceOrderTest {

    /** Fault Tolerance outside the lock and the transaction. */
    private static final Map<String, String> OUTSIDE = Map.of(InterceptorOrder.FAULT_TOLERANCE_PRIORITY, "50");
    private static final int STORM_THREADS = 8;
    private static final int STORM_CALLS = 2_000;

    @ApplicationScoped
    public static class Desk {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger bodies = new AtomicInteger();

        @Locked(value = "ft:{key}", waitTime = 0)
        @Retry(maxRetries = 40, delay = 50, jitter = 0)
        public String retried(String key) {
            bodies.incrementAndGet();
            return "served";
        }

        @Locked(value = "ft:{key}", waitTime = 10_000)
        @Timeout(300)
        public String waitsAtMost300Ms(String key) {
            return "served";
        }

        @Locked(value = "ft:{key}")
        @Timeout(300)
        @Transactional
        public String sleepsInside(String key, long millis) throws InterruptedException {
            bodies.incrementAndGet();
            Thread.sleep(millis);
            return "slept";
        }

        @Locked(value = "ft:{key}", waitTime = 10_000)
        @Bulkhead(value = 1)
        public String oneAtATime(String key, CountDownLatch inside, CountDownLatch leave) throws InterruptedException {
            inside.countDown();
            leave.await(10, TimeUnit.SECONDS);
            return "served";
        }

        /** Fault Tolerance's {@code @Asynchronous}: the caller gets a stage at once; the lock is held until {@code done} completes. */
        @Locked(value = "ft:{key}")
        @org.eclipse.microprofile.faulttolerance.Asynchronous
        public java.util.concurrent.CompletionStage<String> later(String key, CompletableFuture<String> done) {
            return done;
        }

        /** The storm's twin: a retry, no lock. */
        @Retry(maxRetries = 3, delay = 1, jitter = 0)
        public void stormedUnlocked() {
            region();
        }

        public int overlaps() {
            return overlaps.get();
        }

        /** Each caller counts itself in; a second one inside is an overlap. */
        public void region() {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            Thread.onSpinWait();
            for (int i = 0; i < 1_000 && inside.get() == 1; i++) {
                Thread.onSpinWait();
            }
            inside.decrementAndGet();
        }
    }

    /** Names a lock timeout in Fault Tolerance: only right where Fault Tolerance is outside the lock. */
    @ApplicationScoped
    public static class NamesLockTimeouts {
        @Locked(value = "ft:{key}", waitTime = 0)
        @Retry(retryOn = LockTimeoutException.class, maxRetries = 40, delay = 50, jitter = 0)
        public String retriedOnTimeout(String key) {
            return "served";
        }

        @Locked(value = "ft:{key}", waitTime = 0)
        @Fallback(fallbackMethod = "busy", applyOn = LockTimeoutException.class)
        public String orBusy(String key) {
            return "served";
        }

        String busy(String key) {
            return "busy";
        }

        /** The storm: retried until it has the lock. */
        @Locked(value = "ft:storm", waitTime = 0)
        @Retry(retryOn = LockTimeoutException.class, maxRetries = -1, maxDuration = 120_000, delay = 1, jitter = 0)
        public void stormed(Desk desk) {
            desk.region();
        }
    }

    /** Opens after two of four calls found the store unreachable; tries again after a second. */
    @ApplicationScoped
    public static class Breaker {
        @Locked(value = "ft:{key}", waitTime = 1_000)
        @CircuitBreaker(failOn = LockServiceUnavailableException.class, requestVolumeThreshold = 4, failureRatio = 0.5,
                delay = 1_000, successThreshold = 1)
        public String call(String key) {
            return "served";
        }
    }

    @ApplicationScoped
    public static class Recorder implements LockListener {
        static final Map<String, AtomicInteger> ACQUIRED = new ConcurrentHashMap<>();
        static final Map<String, AtomicInteger> RELEASED = new ConcurrentHashMap<>();

        @Override
        public void acquired(String key, String site, LockMode mode, long waitNanos) {
            ACQUIRED.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void released(String key, String site, LockMode mode, long heldNanos) {
            RELEASED.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        }

        static int acquired(String key) {
            return ACQUIRED.getOrDefault(key, new AtomicInteger()).get();
        }

        static int released(String key) {
            return RELEASED.getOrDefault(key, new AtomicInteger()).get();
        }
    }

    @InterceptorBinding
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.TYPE})
    public @interface At60 {
    }

    /** An interceptor at 60: outside the lock at its default 100, inside it at {@code distlock.interceptor.priority=30}. */
    @At60
    @jakarta.interceptor.Interceptor
    @Priority(60)
    public static class At60Interceptor {
        static final List<Boolean> HELD = new java.util.concurrent.CopyOnWriteArrayList<>();
        @Inject
        DistlockSetup distlock;

        @AroundInvoke
        Object around(InvocationContext invocation) throws Exception {
            HELD.add(Probe.isLocked(distlock.settings().keyPrefix() + ":lock:moved"));
            return invocation.proceed();
        }
    }

    @ApplicationScoped
    public static class Moved {
        @Locked("moved")
        @At60
        public void call() {
        }
    }

    @Test
    void aRetryOutsideTheLockTakesTheLockAgain() throws Exception {
        try (DistlockWeld weld = start(OUTSIDE, Desk.class, NamesLockTimeouts.class)) {
            CompletableFuture<Void> holder = hold(weld, "ft:r", Duration.ofMillis(600));
            long started = System.nanoTime();
            assertEquals("served", weld.bean(NamesLockTimeouts.class).retriedOnTimeout("r"), "retried until the holder left");
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) >= 300, "served only once the holder had gone");
            holder.get(10, TimeUnit.SECONDS);

            holder = hold(weld, "ft:f", Duration.ofMillis(600));
            assertEquals("busy", weld.bean(NamesLockTimeouts.class).orBusy("f"), "the fallback answers for a lock not had");
            holder.get(10, TimeUnit.SECONDS);
        }
    }

    /** The twin: in Fault Tolerance's default place a retry never sees the lock's timeout. */
    @Test
    void aRetryInsideTheLockNeverRetriesItsTimeout() throws Exception {
        try (DistlockWeld weld = start(Map.of(), Desk.class)) {
            Desk desk = weld.bean(Desk.class);
            CompletableFuture<Void> holder = hold(weld, "ft:r", Duration.ofMillis(600));
            long started = System.nanoTime();
            assertThrows(LockTimeoutException.class, () -> desk.retried("r"));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) < 300, "not retried: failed at once");
            holder.get(10, TimeUnit.SECONDS);
        }
        try (DistlockWeld weld = start(OUTSIDE, Desk.class)) {
            CompletableFuture<Void> holder = hold(weld, "ft:r2", Duration.ofMillis(600));
            assertEquals("served", weld.bean(Desk.class).retried("r2"), "the same @Retry outside the lock retries it");
            holder.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCircuitBreakerOutsideTheLockOpensWhileTheStoreIsDownAndClosesWhenItIsBack() throws Exception {
        int port = Ports.free();
        Map<String, String> settings = new HashMap<>(OUTSIDE);
        settings.put("distlock.redis.address", "redis://127.0.0.1:" + port);
        Probe.client(); // loads Redisson and Netty before the clock starts
        try (DistlockWeld weld = start(false, false, settings, Breaker.class)) {
            Breaker breaker = weld.bean(Breaker.class);
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                seen.add(outcome(() -> breaker.call("c")));
            }
            assertEquals(List.of("LockServiceUnavailableException", "LockServiceUnavailableException", "LockServiceUnavailableException",
                    "LockServiceUnavailableException", "CircuitBreakerOpenException", "CircuitBreakerOpenException"), seen,
                    "open after four calls that found Redis down");
            try (RedisProcess redis = RedisProcess.start(port)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                String last;
                while (!(last = outcome(() -> breaker.call("c"))).equals("served")) {
                    assertTrue(System.nanoTime() < deadline, "never closed again with Redis back: " + last);
                    Thread.sleep(250);
                }
                assertEquals("served", outcome(() -> breaker.call("c")), "closed");
            }
        }
    }

    private static String outcome(java.util.function.Supplier<String> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    @Test
    void namingALockTimeoutInsideTheLockIsRefusedByName() {
        RuntimeException refused = assertThrows(RuntimeException.class, () -> start(Map.of(), NamesLockTimeouts.class).close());
        String messages = DistlockWeld.messages(refused);
        assertTrue(messages.contains("@Retry(retryOn = LockTimeoutException.class) on NamesLockTimeouts.retriedOnTimeout(String):"
                + " Fault Tolerance runs inside the lock (mp.fault.tolerance.interceptor.priority is 4010, the lock's"
                + " distlock.interceptor.priority 100), so it never sees LockTimeoutException"), messages);
        assertTrue(messages.contains("@Fallback(applyOn = LockTimeoutException.class) on NamesLockTimeouts.orBusy(String)"), messages);
        RuntimeException breaker = assertThrows(RuntimeException.class, () -> start(Map.of(), Breaker.class).close());
        assertTrue(DistlockWeld.messages(breaker).contains("@CircuitBreaker(failOn = LockServiceUnavailableException.class) on"
                + " Breaker.call(String): Fault Tolerance runs inside the lock"), DistlockWeld.messages(breaker));
    }

    @Test
    void anyOtherFaultToleranceInsideTheLockIsWarnedOfOnce() {
        try (LogCapture log = LogCapture.start(); DistlockWeld weld = start(Map.of(), Desk.class)) {
            String warning = "distlock: Desk.retried(String) carries @Retry inside its lock (mp.fault.tolerance.interceptor.priority is"
                    + " 4010, the lock's distlock.interceptor.priority 100)";
            assertEquals(1, log.records().stream().filter(r -> r.startsWith("WARNING") && r.contains(warning)).count(), log.all());
        }
        try (LogCapture log = LogCapture.start(); DistlockWeld weld = start(OUTSIDE, Desk.class)) {
            assertTrue(log.records().stream().noneMatch(r -> r.contains("inside its lock")), "outside, nothing to warn of: " + log.all());
        }
    }

    /**
     * Interrupted while waiting behind a holder in this JVM (in the local queue) and behind one
     * elsewhere (a client of its own holding the key in Redis: the wait is Redis's): the abandoned
     * wait never takes the lock afterwards.
     */
    @Test
    void aTimeoutOutsideTheLockEndsTheWaitAndLeavesNoHolder() throws Exception {
        try (DistlockWeld weld = start(OUTSIDE, Desk.class)) {
            for (String where : List.of("here", "elsewhere")) {
                String key = prefix(weld) + ":lock:ft:w-" + where;
                CompletableFuture<Void> holder = where.equals("here") ? hold(weld, "ft:w-" + where, Duration.ofMillis(1_500))
                        : holdElsewhere(key, Duration.ofMillis(1_500));
                long started = System.nanoTime();
                assertThrows(TimeoutException.class, () -> weld.bean(Desk.class).waitsAtMost300Ms("w-" + where),
                        () -> where + ": served after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
                                + " ms, the holder " + (holder.isDone() ? "done" : "still holding"));
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                assertTrue(waited < 1_200, where + ": the wait ended at the timeout, not with the holder: " + waited + " ms");
                holder.get(10, TimeUnit.SECONDS);
                // The abandoned wait's Redis attempt goes on for its 10 s and is granted the lock the holder
                // just gave up (300 ms let that happen): it is given straight back, a few Redis round trips
                // later (over 300 ms on a loaded machine). Kept, it would stay its whole lease, 30 s or more.
                Thread.sleep(300);
                long freeAfter = millisUntilFree(key, 5_000);
                assertTrue(freeAfter < 5_000, where + ": the abandoned wait took the lock after all, and kept it");
                assertEquals("served", weld.bean(Desk.class).waitsAtMost300Ms("w-" + where), where + ": free for the next caller");
            }
        }
    }

    /** Milliseconds until lock {@code key} is free in Redis, looking every 20 ms; {@code limitMillis} if it never is. */
    private static long millisUntilFree(String key, long limitMillis) throws InterruptedException {
        long started = System.nanoTime();
        long waited;
        while ((waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)) < limitMillis) {
            if (!Probe.isLocked(key)) {
                return waited;
            }
            Thread.sleep(20);
        }
        return limitMillis;
    }

    @Test
    void aTimeoutOutsideTheLockEndsTheSectionAndGivesTheLockBackOnce() throws Exception {
        try (DistlockWeld weld = start(OUTSIDE, Desk.class, Recorder.class)) {
            Desk desk = weld.bean(Desk.class);
            String key = prefix(weld) + ":lock:ft:s";
            long started = System.nanoTime();
            assertThrows(TimeoutException.class, () -> desk.sleepsInside("s", 5_000));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) < 3_000, "the section was interrupted");
            assertFalse(Probe.isLocked(key), "the lock was given back");
            assertEquals(1, Recorder.acquired(key), () -> "acquired: " + Recorder.ACQUIRED);
            assertEquals(1, Recorder.released(key), "released exactly once");
            assertEquals("slept", desk.sleepsInside("s", 10));
            assertEquals(2, Recorder.released(key));
        }
    }

    /** In either order: the caller gets its stage at once, and the lock stays until the method's stage completes. */
    @Test
    void anAsynchronousFaultToleranceCallKeepsItsLockUntilItsStageCompletes() throws Exception {
        for (Map<String, String> order : List.of(Map.<String, String>of(), OUTSIDE)) {
            try (DistlockWeld weld = start(order, Desk.class)) {
                String key = prefix(weld) + ":lock:ft:a";
                CompletableFuture<String> done = new CompletableFuture<>();
                CompletableFuture<String> stage = weld.bean(Desk.class).later("a", done).toCompletableFuture();
                Thread.sleep(300);
                String where = order.isEmpty() ? "inside" : "outside";
                assertFalse(stage.isDone(), where);
                assertTrue(Probe.isLocked(key), where + ": held while the stage is pending");
                done.complete("done");
                assertEquals("done", stage.get(10, TimeUnit.SECONDS), where);
                assertFalse(Probe.isLocked(key), where + ": released once the stage completed");
            }
        }
    }

    @Test
    void aBulkheadOutsideTheLockTurnsCallersAwayBeforeTheyWait() throws Exception {
        try (DistlockWeld weld = start(OUTSIDE, Desk.class)) {
            Desk desk = weld.bean(Desk.class);
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch leave = new CountDownLatch(1);
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return desk.oneAtATime("b", inside, leave);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            long started = System.nanoTime();
            assertThrows(BulkheadException.class, () -> desk.oneAtATime("other-key", new CountDownLatch(1), new CountDownLatch(0)));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) < 1_000, "turned away, not queued for a lock");
            leave.countDown();
            assertEquals("served", first.get(10, TimeUnit.SECONDS));
        }
    }

    /**
     * {@value #STORM_CALLS} calls from {@value #STORM_THREADS} threads, each retried until it has
     * the lock: never two inside. The twin without the lock shows the count sees overlaps.
     */
    @Test
    void aStormRetryingTheLockNeverHasTwoInside() throws Exception {
        try (DistlockWeld weld = start(OUTSIDE, Desk.class, NamesLockTimeouts.class)) {
            Desk desk = weld.bean(Desk.class);
            NamesLockTimeouts retried = weld.bean(NamesLockTimeouts.class);
            storm(() -> retried.stormed(desk));
            System.out.println("[fault tolerance] " + STORM_CALLS + " calls retried until locked over " + STORM_THREADS
                    + " threads: overlaps " + desk.overlaps());
            assertEquals(0, desk.overlaps(), "two callers inside at once");
            storm(desk::stormedUnlocked);
            System.out.println("[fault tolerance] twin without the lock: overlaps " + desk.overlaps());
            assertTrue(desk.overlaps() > 0, "the twin saw no overlap: the count cannot fail");
        }
    }

    @Test
    void theLockMovesInTheChainAsConfigured() {
        for (boolean lite : List.of(false, true)) {
            At60Interceptor.HELD.clear();
            try (DistlockWeld weld = start(lite, Map.of(), Moved.class, At60Interceptor.class)) {
                weld.bean(Moved.class).call();
            }
            try (DistlockWeld weld = start(lite, Map.of(InterceptorOrder.PRIORITY, "30"), Moved.class, At60Interceptor.class)) {
                weld.bean(Moved.class).call();
            }
            assertEquals(List.of(false, true), At60Interceptor.HELD, (lite ? "CDI Lite" : "full CDI")
                    + ": outside the lock at 100, inside it at 30");
        }
    }

    @Test
    void aPriorityInsideTheTransactionIsRefusedByName() {
        for (boolean lite : List.of(false, true)) {
            for (String value : List.of("199", "4020", "soon")) {
                RuntimeException refused = assertThrows(RuntimeException.class,
                        () -> start(lite, Map.of(InterceptorOrder.PRIORITY, value), Moved.class, At60Interceptor.class).close());
                String messages = DistlockWeld.messages(refused);
                assertTrue(messages.contains("Config distlock.interceptor.priority=" + value + ": "), messages);
                assertTrue(messages.contains("below 199"), messages);
            }
        }
    }

    private void storm(Runnable call) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(STORM_THREADS);
        try {
            List<CompletableFuture<Void>> calls = new ArrayList<>();
            for (int i = 0; i < STORM_CALLS; i++) {
                calls.add(CompletableFuture.runAsync(call, threads));
            }
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        } finally {
            threads.shutdownNow();
        }
    }

    /** Holds {@code key} from another thread for {@code time}; returns once it is held. */
    private static CompletableFuture<Void> hold(DistlockWeld weld, String key, Duration time) throws InterruptedException {
        DistributedLocks locks = weld.bean(DistributedLocks.class);
        CountDownLatch held = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> locks.exclusive(key).run(() -> {
            held.countDown();
            try {
                Thread.sleep(time.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertTrue(held.await(10, TimeUnit.SECONDS), "the holder never took " + key);
        return holder;
    }

    /** Holds the Redis key {@code redisKey} through a client of its own, as another server would; returns once it is held. */
    private static CompletableFuture<Void> holdElsewhere(String redisKey, Duration time) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            org.redisson.api.RLock lock = Probe.client().getLock(redisKey);
            lock.lock();
            try {
                held.countDown();
                Thread.sleep(time.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        });
        assertTrue(held.await(10, TimeUnit.SECONDS), "the other client never took " + redisKey);
        return holder;
    }

    private static String prefix(DistlockWeld weld) {
        return weld.bean(DistlockSetup.class).settings().keyPrefix();
    }

    private static DistlockWeld start(Map<String, String> settings, Class<?>... beans) {
        return start(false, settings, beans);
    }

    private static DistlockWeld start(boolean lite, Map<String, String> settings, Class<?>... beans) {
        return start(lite, true, settings, beans);
    }

    /** With Narayana and the application's Redis client, or neither (distlock then connects to distlock.redis.address). */
    private static DistlockWeld start(boolean lite, boolean narayana, Map<String, String> settings, Class<?>... beans) {
        Map<String, String> all = new HashMap<>(settings);
        all.put("distlock.key-prefix", TestRedis.uniquePrefix("ft"));
        all.put("MP_Fault_Tolerance_Metrics_Enabled", "false");
        List<jakarta.enterprise.inject.spi.Extension> faultTolerance = List.of(new ConfigExtension(), new FaultToleranceExtension());
        if (!narayana) {
            return DistlockWeld.start(all, faultTolerance, beans);
        }
        return lite ? Narayana.startLite(all, faultTolerance, beans) : Narayana.start(all, faultTolerance, beans);
    }
}
