package dev.distlock.runtimes;

import dev.distlock.testkit.Processes;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.TestRedis;
import org.redisson.Redisson;
import org.redisson.config.Config;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every runtime check shows, end to end: the application under runtimes/app, built for one
 * runtime, started twice against one real Redis and driven over HTTP as a user would. A subclass
 * says how its runtime starts the application and how it refuses a broken one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RuntimeChecks {

    private static final int BUYERS = 64;
    /**
     * The locked storm. With the transaction shapes' 8,000 calls below, 20,000 locked calls over two
     * servers are checked for a second holder: an anomaly of one call in 10,000 would likely show
     * (two expected).
     */
    private static final int UNITS = 3_000;
    private static final int ORDERS = 12_000;
    /** The unlocked twin only has to show that the storm oversells without the lock. */
    private static final int TWIN_UNITS = 1_000;
    private static final int TWIN_ORDERS = 4_000;
    /** Each transaction shape: sized so that an overlap in one call of 1,000 would likely show (four expected). */
    private static final int SHAPE_CALLS = 4_000;
    /** The unlocked twins only have to show that the count sees overlaps. */
    private static final int SHAPE_TWIN_CALLS = 200;
    /** A call that waits for its own transaction's lock waits its whole waitTime (1 s): every one would show. */
    private static final int SELF_WAIT_CALLS = 100;
    /** The keys the shapes' callers share, as in the review that found them. */
    private static final int SHAPE_KEYS = 4;

    /**
     * MicroProfile Telemetry on, metrics written to the server's log every second by OpenTelemetry's
     * logging exporter, and spans within half a second; a request's spans are recorded only when its
     * caller sampled its trace ({@code traceparent} with the sampled flag), so the storms record none.
     */
    protected static final Map<String, String> TELEMETRY_TO_LOG = Map.of(
            "otel.sdk.disabled", "false",
            "otel.metrics.exporter", "logging",
            "otel.metric.export.interval", "1000",
            "otel.traces.exporter", "logging",
            "otel.traces.sampler", "parentbased_always_off",
            "otel.bsp.schedule.delay", "500",
            "otel.logs.exporter", "none");

    protected final String prefix = TestRedis.uniquePrefix(getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT));
    /** HTTP/1.1, a connection per call in flight: Quarkus 3.37 accepts the JDK client's upgrade to HTTP/2, whose streams per connection are bounded. */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Instance> instances = new ArrayList<>();
    /** The instances' Redis, of the checks' own: the circuit breaker check stops it and starts it again. */
    private RedisProcess store;
    private RedissonClient redis;

    /** A started application: its process, its address (e.g. {@code http://127.0.0.1:8081}) and its log. */
    protected record Instance(Process process, String base, Path log) {
    }

    /**
     * Starts the application once, named {@code name}, with these settings as system properties
     * beside {@code distlock.redis.address} and {@code distlock.key-prefix}.
     */
    protected abstract Instance start(String name, Map<String, String> settings) throws Exception;

    /** Asserts that the runtime refused the application {@code broken} with {@code message}, and serves none of it. */
    protected abstract void assertRefused(Instance broken, String message) throws Exception;

    /** The settings every instance gets: this run's Redis and key prefix. */
    protected Map<String, String> distlockSettings() {
        return Map.of("distlock.redis.address", store.url(), "distlock.key-prefix", prefix);
    }

    @BeforeAll
    void startTwoInstances() throws Exception {
        store = RedisProcess.startOnFreePort();
        Config config = new Config();
        config.useSingleServer().setAddress(store.url());
        redis = Redisson.create(config);
        instances.add(start("a", Map.of()));
        instances.add(start("b", Map.of()));
        for (Instance instance : instances) {
            awaitUp(instance);
        }
    }

    @AfterAll
    void stop() {
        instances.forEach(RuntimeChecks::stop);
        if (redis != null) {
            redis.shutdown();
        }
        if (store != null) {
            store.close();
        }
    }

    /** The {@code i}-th of the two instances every check runs against. */
    protected Instance instance(int i) {
        return instances.get(i);
    }

    /** Stops an instance and whatever it started (a launcher script's JVM). */
    protected static void stop(Instance instance) {
        Processes.stop(instance.process, Duration.ofSeconds(30));
    }

    @Test
    void aLockedCallHoldsItsKeyInRedisAndReleasesIt() throws Exception {
        for (Instance instance : instances) {
            assertEquals("true", send(instance, "GET", "/held/KEY-1").body(), "the key was not held while the method ran");
        }
        assertFalse(redis.getLock(prefix + ":lock:sku:KEY-1").isLocked(), "the key outlived the call");
    }

    /** Narayana's registry found as a bean: a lock taken inside a transaction is released after its commit. */
    @Test
    void aLockTakenInsideATransactionIsHeldUntilTheCommit() throws Exception {
        assertEquals("true", send(instances.get(0), "POST", "/checkout/KEY-2").body(), "released before the commit");
        assertFalse(redis.getLock(prefix + ":lock:sku:KEY-2").isLocked(), "the key outlived the transaction");
        // The twin: without a transaction the same calls find the key already released.
        assertEquals("false", send(instances.get(0), "POST", "/no-checkout/KEY-2").body());
    }

    @Test
    void aStormOverTwoInstancesSellsEachUnitOnce() throws Exception {
        Storm storm = lockedStorm("MUG", ORDERS, UNITS);
        assertEquals(UNITS, storm.ids.size(), "order ids were not unique");
        assertEquals("0", send(instances.get(1), "GET", "/stock/MUG").body());
    }

    /** A locked storm of {@code orders} over both instances for {@code units} of {@code sku}, which sells each unit once. */
    protected Storm lockedStorm(String sku, int orders, int units) throws Exception {
        Storm storm = storm(sku, "/buy/", orders, units);
        assertEquals(units, storm.sold.get(), "units sold: " + storm);
        assertEquals(orders - units, storm.soldOut.get(), "answers: " + storm);
        assertEquals(0, storm.other.get(), "answers: " + storm);
        return storm;
    }

    /** The twin: the same storm through the unlocked method sells units that are not there. */
    @Test
    void withoutTheLockTheSameStormOversells() throws Exception {
        Storm storm = storm("CUP", "/buy-unlocked/", TWIN_ORDERS, TWIN_UNITS);
        assertTrue(storm.sold.get() > TWIN_UNITS, "expected an oversell without the lock: " + storm);
    }

    /**
     * Semantics 6 under a storm over both servers: a plain {@code @Transactional} repository inside a
     * locked call, and {@code REQUIRES_NEW} inside a locked call made in the caller's transaction.
     * Each caller counts itself into its region in Redis (from its lock's acquisition until its
     * method returned, or until its transaction begins to commit); a second caller inside is an overlap.
     */
    @Test
    void theTransactionShapesNeverHaveTwoHoldersAtOnce() throws Exception {
        Map<String, String> results = new TreeMap<>();
        int calls = shapeCalls();
        for (String shape : List.of("plain-bean-inside", "requires-new-inside")) {
            Map<String, Integer> answers = shapeStorm(shape, calls);
            long overlaps = redis.getAtomicLong(prefix + ":overlaps:" + shape).get();
            System.out.println(getClass().getSimpleName() + " shape " + shape + ": " + calls + " calls on " + SHAPE_KEYS
                    + " keys, answers " + answers + ", overlaps " + overlaps);
            if (overlaps != 0 || !answers.equals(Map.of("200 ok", calls))) {
                results.put(shape, overlaps + " overlaps, answers " + answers);
            }
        }
        assertEquals(Map.of(), results, "callers found another inside their region");
    }

    /** How many times a caller of {@code shape} found another inside its region ({@link dev.distlock.runtimes.shapes.Regions}). */
    protected long overlaps(String shape) {
        return redis.getAtomicLong(prefix + ":overlaps:" + shape).get();
    }

    /** How many calls of each shape: {@link #SHAPE_CALLS}, less on a runtime whose path other checks cover. */
    protected int shapeCalls() {
        return SHAPE_CALLS;
    }

    /** The twin: the same shapes without the lock, which the count shows overlapping. */
    @Test
    void withoutTheLockTheSameShapesOverlap() throws Exception {
        for (String shape : List.of("plain-bean-inside-unlocked", "requires-new-inside-unlocked")) {
            Map<String, Integer> answers = shapeStorm(shape, SHAPE_TWIN_CALLS);
            long overlaps = redis.getAtomicLong(prefix + ":overlaps:" + shape).get();
            System.out.println(getClass().getSimpleName() + " shape " + shape + ": " + SHAPE_TWIN_CALLS + " calls, answers "
                    + answers + ", overlaps " + overlaps);
            assertTrue(overlaps > 0, shape + ": the unlocked twin showed no overlap");
        }
    }

    /**
     * No call waits for a lock its own transaction holds: the catch block's locked call after a
     * failure doomed the transaction, and a chain begun under NOT_SUPPORTED or REQUIRES_NEW in it.
     */
    @Test
    void noCallWaitsForALockItsOwnTransactionHolds() throws Exception {
        Map<String, Map<String, Integer>> waited = new TreeMap<>();
        for (String shape : List.of("doomed", "not-supported-chain", "requires-new-chain")) {
            Map<String, Integer> answers = shapeStorm(shape, SELF_WAIT_CALLS);
            System.out.println(getClass().getSimpleName() + " shape " + shape + ": " + SELF_WAIT_CALLS + " calls, answers " + answers);
            if (answers.getOrDefault("200 ok", 0) + answers.getOrDefault("200 rolled back", 0) != SELF_WAIT_CALLS) {
                waited.put(shape, answers);
            }
        }
        assertEquals(Map.of(), waited, "calls waited for a lock their own transaction held");
    }

    /**
     * distlock changes no transaction: a bean made {@code @Transactional} by a stereotype runs in a
     * transaction with distlock deployed (its guard was once added to the transaction manager's own
     * interceptors, which then left such beans with no transaction at all).
     */
    @Test
    void aStereotypedTransactionalBeanRunsInATransaction() throws Exception {
        for (Instance instance : instances) {
            for (int i = 0; i < 4; i++) {
                assertEquals("in a transaction", send(instance, "POST", "/shapes/stereotype/s" + i).body());
            }
        }
    }

    /** The retried storm: an overlap in one call of 1,000 would likely show (two expected). */
    private static final int RETRIED_CALLS = 2_000;

    /**
     * MicroProfile Fault Tolerance outside the lock (the application's
     * {@code mp.fault.tolerance.interceptor.priority=50}): callers that find the key held retry
     * ({@code @Retry(retryOn = LockTimeoutException.class)}, {@code waitTime = 0}) until they have
     * it, each try a new acquisition and transaction, over both servers — and never two inside.
     * The twin, the same retry without the lock, overlaps.
     */
    @Test
    void aRetryOutsideTheLockWaitsItsTurnAndNeverHasTwoHolders() throws Exception {
        assertNoOverlapWithTwin("/shapes/", "retried", "@Retry(retryOn = LockTimeoutException) outside the lock");
    }

    /**
     * {@link #RETRIED_CALLS} calls of {@code shape} over both servers and the shared keys: each
     * answered {@code ok}, none inside its region with another; its {@code -unlocked} twin overlaps.
     */
    private void assertNoOverlapWithTwin(String base, String shape, String label) throws Exception {
        Map<String, Integer> answers = shapeStorm(base, shape, RETRIED_CALLS);
        long overlaps = overlaps(shape);
        Map<String, Integer> twin = shapeStorm(base, shape + "-unlocked", SHAPE_TWIN_CALLS);
        long twinOverlaps = overlaps(shape + "-unlocked");
        System.out.println(getClass().getSimpleName() + " " + label + ": " + RETRIED_CALLS + " calls on " + SHAPE_KEYS + " keys, answers "
                + answers + ", overlaps " + overlaps + "; twin without the lock: " + SHAPE_TWIN_CALLS + " calls, answers " + twin
                + ", overlaps " + twinOverlaps);
        assertEquals(Map.of("200 ok", RETRIED_CALLS), answers, label + ": every call served");
        assertEquals(0, overlaps, label + ": callers found another inside their region");
        assertTrue(twinOverlaps > 0, label + ": the unlocked twin showed no overlap");
    }

    /**
     * {@code @Timeout(300)} outside the lock ends a wait of up to 10 s behind a holder elsewhere (a
     * client of the check's own holding the key in Redis); the abandoned wait never takes the lock
     * afterwards, and the next caller is served.
     */
    @Test
    void aTimeoutOutsideTheLockEndsTheWaitAndLeavesNoHolder() throws Exception {
        String key = prefix + ":lock:retried:TIMED";
        org.redisson.api.RLock elsewhere = redis.getLock(key);
        elsewhere.lock();
        long waited;
        HttpResponse<String> answer;
        try {
            long started = System.nanoTime();
            answer = send(instances.get(0), "POST", "/shapes/timed-wait/TIMED");
            waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            Thread.sleep(200);
        } finally {
            elsewhere.unlock();
        }
        System.out.println(getClass().getSimpleName() + " @Timeout(300) outside the lock, behind a holder: " + answer.statusCode()
                + " " + answer.body() + " after " + waited + " ms");
        assertEquals("timed out", answer.body(), "status " + answer.statusCode());
        assertTrue(waited < 5_000, "the wait was not cut short: " + waited + " ms");
        Thread.sleep(500);
        assertFalse(redis.getLock(key).isLocked(), "the abandoned wait took the lock after all, and kept it");
        assertEquals("served", send(instances.get(1), "POST", "/shapes/timed-wait/TIMED").body());
    }

    /**
     * With the key held elsewhere (a client of the check's own, in Redis) and Fault Tolerance
     * outside the lock: {@code @Fallback(applyOn = LockTimeoutException.class)} answers for the lock
     * not had; {@code @Bulkhead(1)} lets one caller wait for the key and turns a second away at once,
     * before it waits; once the key is free the waiting caller is served.
     */
    @Test
    void aFallbackAndABulkheadOutsideTheLockActBeforeTheWait() throws Exception {
        String key = prefix + ":lock:retried:HELD";
        org.redisson.api.RLock elsewhere = redis.getLock(key);
        elsewhere.lock();
        CompletableFuture<HttpResponse<String>> waiting;
        String fallback;
        String second;
        long secondMillis;
        try {
            fallback = send(instances.get(0), "POST", "/shapes/or-busy/HELD").body();
            waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return send(instances.get(1), "POST", "/shapes/one-at-a-time/HELD");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(1_000); // the first caller is in, waiting for the key
            long started = System.nanoTime();
            second = send(instances.get(1), "POST", "/shapes/one-at-a-time/HELD").body();
            secondMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        } finally {
            elsewhere.unlock();
        }
        String first = waiting.get(30, TimeUnit.SECONDS).body();
        System.out.println(getClass().getSimpleName() + " with the key held elsewhere: @Fallback " + fallback + "; @Bulkhead(1): first "
                + first + ", second " + second + " after " + secondMillis + " ms");
        assertEquals("busy", fallback, "the fallback answers for a lock not had");
        assertEquals("turned away", second, "a second caller is turned away by the bulkhead");
        assertTrue(secondMillis < 1_000, "turned away at once, not after a wait: " + secondMillis + " ms");
        assertEquals("served", first, "the caller the bulkhead let in is served once the key is free");
    }

    /**
     * Fault Tolerance's {@code @Asynchronous} outside the lock, on a method whose stage completes on
     * another thread a moment after it returned: the lock is taken on Fault Tolerance's thread and
     * held until the stage completes; over both servers and the shared keys, never two inside
     * (the region ends as the stage completes). The twin without the lock overlaps.
     */
    @Test
    void aFaultToleranceAsynchronousLockedCallHoldsItsKeyUntilItsStageCompletes() throws Exception {
        assertNoOverlapWithTwin("/shapes/", "ft-asynchronous", "Fault Tolerance @Asynchronous outside the lock, the stage completed later");
    }

    /**
     * {@code @CircuitBreaker(failOn = LockServiceUnavailableException.class)} outside the lock: with
     * the instances' Redis killed, four calls find the store down and the breaker opens, so the next
     * calls are refused without asking the store; once Redis is back the breaker closes, and both
     * instances serve locked calls again.
     */
    @Test
    void aCircuitBreakerOutsideTheLockOpensWhileRedisIsDownAndClosesOnceItIsBack() throws Exception {
        List<String> seen = new ArrayList<>();
        long closedMillis;
        store.kill();
        try {
            for (int i = 0; i < 6; i++) {
                seen.add(send(instances.get(0), "POST", "/shapes/breaker/DOWN").body());
            }
        } finally {
            store.start();
        }
        long restarted = System.nanoTime();
        String after = awaitServed(instances.get(0), "/shapes/breaker/DOWN");
        closedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted);
        for (Instance instance : instances) { // the other checks find both instances at work again
            awaitServed(instance, "/shapes/or-busy/BACK");
        }
        System.out.println(getClass().getSimpleName() + " @CircuitBreaker outside the lock, Redis killed: " + seen
                + "; Redis back: " + after + " after " + closedMillis + " ms");
        assertEquals(List.of("unavailable", "unavailable", "unavailable", "unavailable", "open", "open"), seen,
                "the breaker opens after four calls that found Redis down");
        assertEquals("served", after, "the breaker closes once Redis is back");
    }

    /** Calls {@code path} every 100 ms until it answers {@code served}, for up to a minute; the last answer. */
    private String awaitServed(Instance instance, String path) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String answer;
        do {
            Thread.sleep(100);
            answer = send(instance, "POST", path).body();
        } while (!answer.equals("served") && System.nanoTime() < deadline);
        return answer;
    }

    /**
     * Whether {@code mp.fault.tolerance.interceptor.priority} given when an instance starts moves
     * Fault Tolerance: not on Quarkus, which fixes it when the application is built.
     */
    protected boolean faultToleranceMovesAtStart() {
        return true;
    }

    /** How many asynchronous calls of each kind each instance makes. */
    private static final int ASYNCHRONOUS_CALLS = 8;

    /**
     * An asynchronous {@code @Transactional} locked call (its method returns an unfinished stage),
     * and one whose locked callee took the key in such a transaction: a later caller on the same
     * thread is another caller, and must not enter while the call or its transaction holds the key.
     */
    @Test
    void anAsynchronousTransactionalCallsLockRefusesALaterCallerOnItsThread() throws Exception {
        Map<String, Map<String, Integer>> answers = new TreeMap<>();
        for (String shape : List.of("asynchronous", "asynchronous-callee")) {
            for (int n = 0; n < instances.size(); n++) {
                for (int i = 0; i < ASYNCHRONOUS_CALLS; i++) {
                    HttpResponse<String> response = send(instances.get(n), "POST", "/shapes/" + shape + "/" + shape + "-" + n + "-" + i);
                    answers.computeIfAbsent(shape, s -> new TreeMap<>()).merge(response.statusCode() + " " + response.body(), 1, Integer::sum);
                }
            }
        }
        System.out.println(getClass().getSimpleName() + " asynchronous @Transactional, a later caller on the thread: " + answers);
        answers.forEach((shape, counts) -> assertEquals(0, counts.getOrDefault("200 entered", 0),
                shape + ": a later caller entered the lock an unfinished call or its open transaction held: " + counts));
        assertEquals(Map.of("200 refused", ASYNCHRONOUS_CALLS * instances.size()), answers.get("asynchronous"),
                "the locked asynchronous call keeps its key until its stage completes");
    }

    /**
     * Jakarta Concurrency's {@code @Asynchronous} on a locked method, on a runtime that has it: each
     * call runs on the managed executor's thread, which takes the lock; over both servers and the
     * shared keys, never two inside. The twin without the lock overlaps.
     */
    protected void assertConcurrencyAsynchronousNeverHasTwoHolders() throws Exception {
        assertNoOverlapWithTwin("/deferred/", "deferred", "Concurrency @Asynchronous on a locked method (ok: run on the executor's thread)");
    }

    /** How many times the flush check measures the window left after distlock's check. */
    private static final int WINDOW_SAMPLES = 200;

    /**
     * Item 4 of the transaction review, on a runtime with JPA: the lock's key vanishes while the
     * persistence provider flushes the locked method's change at commit; distlock's check must come
     * after the flush, see the loss and roll the change back. A held lock lets the same change
     * commit. Then the window left unchecked, from just after the check until the transaction has
     * completed, is measured and printed.
     */
    protected void assertTheCheckRunsAfterTheFlush(Instance instance) throws Exception {
        assertEquals(200, send(instance, "PUT", "/notes/n/first").statusCode());
        HttpResponse<String> lost = send(instance, "POST", "/notes/n/lose-lock-during-flush/second");
        assertEquals("rolled back", lost.body(), "a lock lost during the flush: " + lost.statusCode());
        assertEquals("first", send(instance, "GET", "/notes/n").body(), "the change made under the lost lock was committed");

        assertEquals(200, send(instance, "PUT", "/notes/w/first").statusCode());
        List<Long> windows = new ArrayList<>();
        for (int i = 0; i < WINDOW_SAMPLES; i++) {
            HttpResponse<String> window = send(instance, "POST", "/notes/w/window/v" + i);
            assertEquals(200, window.statusCode(), window.body());
            windows.add(Long.parseLong(window.body()));
        }
        assertEquals("v" + (WINDOW_SAMPLES - 1), send(instance, "GET", "/notes/w").body(), "a held lock lets the change commit");
        assertTrue(windows.stream().allMatch(w -> w > 0), "the check ran after a synchronization registered during the commit: " + windows);
        List<Long> sorted = windows.stream().sorted().toList();
        System.out.println(getClass().getSimpleName() + " window after the check until the transaction completed, " + WINDOW_SAMPLES
                + " commits: median " + sorted.get(sorted.size() / 2) / 1_000 + " µs, p99 "
                + sorted.get(sorted.size() * 99 / 100) / 1_000 + " µs, max " + sorted.get(sorted.size() - 1) / 1_000 + " µs");
    }

    /** {@code calls} calls of a shape over both servers and the shared keys; @return each answer ("status body") and how often */
    private Map<String, Integer> shapeStorm(String shape, int calls) throws Exception {
        return shapeStorm("/shapes/", shape, calls);
    }

    /** {@code calls} calls of the shape at {@code base}{@code shape}/{@code key} over both servers and the shared keys. */
    private Map<String, Integer> shapeStorm(String base, String shape, int calls) throws Exception {
        Map<String, Integer> answers = new ConcurrentHashMap<>();
        ExecutorService callers = Executors.newFixedThreadPool(BUYERS);
        try {
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                Instance instance = instances.get(i % 2);
                String path = base + shape + "/k" + (i / 2) % SHAPE_KEYS;
                sent.add(CompletableFuture.runAsync(() -> {
                    String answer;
                    try {
                        HttpResponse<String> response = send(instance, "POST", path);
                        answer = response.statusCode() + " " + (response.statusCode() == 200 ? response.body() : "");
                    } catch (Exception e) {
                        answer = e.toString();
                    }
                    answers.merge(answer.strip(), 1, Integer::sum);
                }, callers));
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
        } finally {
            callers.shutdownNow();
        }
        return new TreeMap<>(answers);
    }

    @Test
    void aConfigurationOverrideShortensTheWait() throws Exception {
        CompletableFuture<HttpResponse<String>> holder = holdTheHoldLock(instances.get(0), 2500);
        long started = System.nanoTime();
        HttpResponse<String> waiter = send(instances.get(1), "POST", "/hold/10");
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(409, waiter.statusCode(), waiter.body());
        assertTrue(waiter.body().contains("within 200 ms"), waiter.body());
        assertTrue(waitedMillis < 2_000, "waited " + waitedMillis + " ms; the annotation's 60 s was not overridden");
        assertEquals(200, holder.get(30, TimeUnit.SECONDS).statusCode());
    }

    @Test
    void readAndWriteLocksServeBothInstances() throws Exception {
        assertEquals("42", send(instances.get(0), "PUT", "/stock/PEN/42").body());
        assertEquals("42", send(instances.get(1), "GET", "/stock/PEN").body());
    }

    /**
     * A bad template from the configuration fails the deployment, naming it; so does, on one start
     * with it, Fault Tolerance put back inside the lock (its default priority) under a
     * {@code @Retry(retryOn = LockTimeoutException.class)} that would then never retry.
     */
    @Test
    void anInvalidKeyTemplateFromTheConfigurationIsRefused() throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(Map.of(Stock.class.getName() + "/buy/Locked/value", "sku:{nope}"));
        if (faultToleranceMovesAtStart()) {
            settings.put("mp.fault.tolerance.interceptor.priority", "4010");
        }
        Instance broken = start("broken", settings);
        try {
            assertRefused(broken, "@Locked.value on Stock.buy(String): invalid key template \"sku:{nope}\": {nope} names no parameter");
            if (faultToleranceMovesAtStart()) {
                assertRefused(broken, "@Retry(retryOn = LockTimeoutException.class) on Retried.book(String): Fault Tolerance runs inside"
                        + " the lock (mp.fault.tolerance.interceptor.priority is 4010, the lock's distlock.interceptor.priority 100)");
            }
        } finally {
            stop(broken);
        }
    }

    /**
     * Takes a lock a few times on {@code instance}, then waits until OpenTelemetry's logging exporter
     * has written distlock's hold times to the instance's log: a histogram in seconds, with seconds'
     * buckets, by locked method and mode (not by key, whose values are unbounded).
     */
    protected void assertHoldTimesExported(Instance instance) throws Exception {
        for (int i = 0; i < 5; i++) {
            assertEquals("true", send(instance, "GET", "/held/OTEL").body());
        }
        // attributes in key order: the locked method and the mode
        String point = "getAttributes={method=\"Stock.heldInRedis(String)\", mode=\"exclusive\"}";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String line;
        while ((line = read(instance.log()).lines().filter(l -> l.contains("name=distlock.lock.hold") && l.contains(point))
                .reduce((a, b) -> b).orElse(null)) == null) {
            // An export may come before the calls above, with other methods' points only.
            assertTrue(System.nanoTime() < deadline, "no hold time of Stock.heldInRedis exported: "
                    + read(instance.log()).lines().filter(l -> l.contains("name=distlock.lock.hold")).toList());
            Thread.sleep(500);
        }
        System.out.println(line);
        assertTrue(line.contains("unit=s"), line);
        assertTrue(line.contains("getBoundaries=[0.001, 0.0025"), "buckets for seconds: " + line);
        Matcher max = Pattern.compile("getMax=([0-9.E-]+)").matcher(line.substring(line.indexOf(point)));
        assertTrue(max.find(), line);
        double seconds = Double.parseDouble(max.group(1));
        assertTrue(seconds > 0 && seconds < 60, "the longest hold should be seconds, not ms or ns: " + seconds);
    }

    /**
     * Two calls on {@code instance}, each on a trace of the test's own (a sampled {@code traceparent}
     * header): one takes its lock from Redis, one times out behind a holder. The logging exporter
     * must write each call's lock span on that trace, beside the request's server span, with the
     * key's template and never its value; and no lock span for any call not on a sampled trace
     * (every other check's calls).
     */
    protected void assertLockSpansExported(Instance instance) throws Exception {
        String sku = "TRACED-" + ThreadLocalRandom.current().nextInt(1_000_000);
        String acquiredTrace = traceId();
        assertEquals("true", send(instance, "GET", "/held/" + sku, traceparent(acquiredTrace)).body());

        CompletableFuture<HttpResponse<String>> holder = holdTheHoldLock(instance, 2000);
        String timedOutTrace = traceId();
        HttpResponse<String> waiter = send(instance, "POST", "/hold/10", traceparent(timedOutTrace));
        assertEquals(409, waiter.statusCode(), waiter.body());
        assertEquals(200, holder.get(30, TimeUnit.SECONDS).statusCode());

        String acquired = exportedSpan(instance, "'lock sku:{sku}' : " + acquiredTrace);
        String timedOut = exportedSpan(instance, "'lock hold' : " + timedOutTrace);
        System.out.println(acquired);
        System.out.println(timedOut);
        for (String span : List.of(acquired, timedOut)) {
            assertTrue(span.contains(" INTERNAL [tracer: dev.distlock"), span);
            assertTrue(span.contains("distlock.lock.mode=exclusive"), span);
            assertTrue(Pattern.compile("distlock\\.lock\\.node=[^,}\\s]+").matcher(span).find(),
                    "the holding server's name (the host's, by default): " + span);
        }
        assertTrue(acquired.contains("distlock.lock.method=Stock.heldInRedis(String)"), acquired);
        assertTrue(acquired.contains("distlock.lock.template=sku:{sku}"), acquired);
        assertTrue(acquired.contains("distlock.lock.outcome=acquired"), acquired);
        assertTrue(acquired.contains("distlock.lock.source=store"), acquired);
        assertFalse(acquired.contains(sku), "the span holds the key's value: " + acquired);
        assertTrue(waitSeconds(acquired) >= 0 && waitSeconds(acquired) < 10, acquired);
        assertTrue(timedOut.contains("distlock.lock.method=Stock.hold(long)"), timedOut);
        assertTrue(timedOut.contains("distlock.lock.outcome=timed_out"), timedOut);
        assertFalse(timedOut.contains("distlock.lock.source"), "a call that never held its lock has no source: " + timedOut);
        assertTrue(waitSeconds(timedOut) >= 0.15 && waitSeconds(timedOut) < 10, "waitTime is 200 ms here: " + timedOut);

        List<String> all = read(instance.log()).lines().filter(line -> line.contains("[tracer: dev.distlock")).toList();
        assertTrue(all.stream().allMatch(line -> line.contains(acquiredTrace) || line.contains(timedOutTrace)),
                "a lock span for a call on no sampled trace: " + all);
        for (String trace : List.of(acquiredTrace, timedOutTrace)) {
            assertTrue(read(instance.log()).lines().anyMatch(line -> line.contains(" : " + trace + " ") && line.contains(" SERVER ")),
                    "no server span of the request on trace " + trace);
        }
    }

    /** Calls {@code Stock.hold(millis)} on {@code instance} and returns once its lock is held in Redis. */
    private CompletableFuture<HttpResponse<String>> holdTheHoldLock(Instance instance, long millis) throws InterruptedException {
        CompletableFuture<HttpResponse<String>> holder = CompletableFuture.supplyAsync(() -> {
            try {
                return send(instance, "POST", "/hold/" + millis);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!redis.getLock(prefix + ":lock:hold").isLocked()) {
            assertTrue(System.nanoTime() < deadline, "the holder never took the lock");
            Thread.sleep(10);
        }
        return holder;
    }

    /** A W3C trace context header of a sampled trace, as a caller that traces would send. */
    private static Map<String, String> traceparent(String traceId) {
        return Map.of("traceparent", "00-" + traceId + "-" + "%016x".formatted(ThreadLocalRandom.current().nextLong() | 1) + "-01");
    }

    private static String traceId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "%016x%016x".formatted(random.nextLong() | 1, random.nextLong());
    }

    private static double waitSeconds(String span) {
        Matcher wait = Pattern.compile("distlock.lock.wait=([0-9.E-]+)").matcher(span);
        assertTrue(wait.find(), "no wait recorded: " + span);
        return Double.parseDouble(wait.group(1));
    }

    /** The line of the span whose name and trace {@code start} gives, once the exporter has written it. */
    private static String exportedSpan(Instance instance, String start) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            String log = read(instance.log());
            java.util.Optional<String> line = log.lines().filter(l -> l.contains(start)).findFirst();
            if (line.isPresent()) {
                return line.get();
            }
            assertTrue(System.nanoTime() < deadline, "no span " + start + " exported: "
                    + log.lines().filter(l -> l.contains("[tracer: ")).toList());
            Thread.sleep(200);
        }
    }

    static final class Storm {
        final int orders;
        final int units;
        final AtomicInteger sold = new AtomicInteger();
        final AtomicInteger soldOut = new AtomicInteger();
        final AtomicInteger other = new AtomicInteger();
        final Set<String> ids = ConcurrentHashMap.newKeySet();
        long millis;

        Storm(int orders, int units) {
            this.orders = orders;
            this.units = units;
        }

        @Override
        public String toString() {
            return orders + " orders for " + units + " units from " + BUYERS + " buyers over 2 instances in " + millis + " ms: 201=" + sold
                    + " 409=" + soldOut + " other=" + other + " distinct ids=" + ids.size();
        }
    }

    private Storm storm(String sku, String path, int orderCount, int units) throws Exception {
        assertEquals(200, send(instances.get(0), "PUT", "/stock/" + sku + "/" + units).statusCode());
        Storm storm = new Storm(orderCount, units);
        long started = System.nanoTime();
        ExecutorService buyers = Executors.newFixedThreadPool(BUYERS);
        try {
            List<CompletableFuture<Void>> orders = new ArrayList<>();
            for (int i = 0; i < orderCount; i++) {
                Instance instance = instances.get(i % 2);
                orders.add(CompletableFuture.runAsync(() -> {
                    try {
                        HttpResponse<String> answer = send(instance, "POST", path + sku);
                        if (answer.statusCode() == 201) {
                            storm.sold.incrementAndGet();
                            storm.ids.add(answer.body());
                        } else if (answer.statusCode() == 409) {
                            storm.soldOut.incrementAndGet();
                        } else {
                            storm.other.incrementAndGet();
                        }
                    } catch (Exception e) {
                        storm.other.incrementAndGet();
                    }
                }, buyers));
            }
            CompletableFuture.allOf(orders.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
        } finally {
            buyers.shutdownNow();
        }
        storm.millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.println(path + ": " + storm);
        return storm;
    }

    protected HttpResponse<String> send(Instance instance, String method, String path) throws IOException, InterruptedException {
        return send(instance, method, path, Map.of());
    }

    private HttpResponse<String> send(Instance instance, String method, String path, Map<String, String> headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(instance.base + path))
                .timeout(Duration.ofSeconds(60))
                .method(method, HttpRequest.BodyPublishers.noBody());
        headers.forEach(request::header);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private void awaitUp(Instance instance) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            assertTrue(instance.process.isAlive(), () -> "the application stopped: " + read(instance.log));
            try {
                if (send(instance, "GET", "/stock/none").statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the application did not answer within 180 s: " + read(instance.log));
    }

    protected static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
