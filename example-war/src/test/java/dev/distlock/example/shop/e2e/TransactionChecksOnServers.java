package dev.distlock.example.shop.e2e;

import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * distlock's transaction rules on a real server, through the shop's {@code /api/checks}: a bean
 * that is {@code @Transactional} through a stereotype runs in a transaction with distlock deployed,
 * and a later caller on the thread of an asynchronous {@code @Transactional} locked call does not
 * enter its lock while the call's stage is unfinished; Fault Tolerance outside the lock acts on
 * it ({@link #assertFaultToleranceOutsideTheLock}) and a storm of retried calls has one holder at a
 * time; and so has a storm of Concurrency {@code @Asynchronous} calls ({@link #assertAsynchronousNeverOverlaps}).
 */
final class TransactionChecksOnServers {

    /** Calls of each check per server. */
    static final int CALLS = 8;

    private TransactionChecksOnServers() {
    }

    /** Runs the checks on every server; prints and returns what the first two answered, by check. */
    static Map<String, Map<String, Integer>> assertOn(ShopHttp http, List<String> urls, String runtime) {
        Map<String, Map<String, Integer>> answers = new TreeMap<>();
        for (int server = 0; server < urls.size(); server++) {
            for (int i = 0; i < CALLS; i++) {
                count(answers, "stereotype", http.send(post(urls.get(server) + "/api/checks/stereotype")));
                count(answers, "asynchronous", http.send(post(urls.get(server) + "/api/checks/asynchronous/"
                        + E2eShop.uniqueSku("LATER") + "-" + server + "-" + i)));
            }
        }
        System.out.println(runtime + ": a stereotyped @Transactional bean, and a later caller after an asynchronous"
                + " @Transactional locked call on its thread: " + answers);
        int calls = CALLS * urls.size();
        assertEquals(Map.of("200 in a transaction", calls), answers.get("stereotype"), "the stereotyped bean's transaction");
        assertEquals(Map.of("200 refused", calls), answers.get("asynchronous"), "the later caller on the thread");
        assertFaultToleranceOutsideTheLock(http, urls, runtime);
        assertRetryStormNeverOverlaps(http, urls, runtime);
        assertFaultToleranceAsynchronousNeverOverlaps(http, urls, runtime);
        return answers;
    }

    /** How long the other server holds the key the Fault Tolerance checks ask for. */
    private static final long HELD_MILLIS = 1_500;

    /**
     * The shop's Fault Tolerance runs outside the lock ({@code mp.fault.tolerance.interceptor.priority=50}):
     * while the second server holds a key, on the first a fallback answers {@code busy} at once, a
     * {@code @Bulkhead(1)} turns a second caller away while the first waits, a {@code @Timeout(300)} ends a 10 s wait, and a {@code @Retry(retryOn = LockTimeoutException.class)}
     * of a call that tries once is served once the key is free, not before.
     */
    static void assertFaultToleranceOutsideTheLock(ShopHttp http, List<String> urls, String runtime) {
        String key = E2eShop.uniqueSku("FT");
        long started = System.nanoTime();
        java.util.concurrent.CompletableFuture<ShopHttp.Answer> holder = http.sendAsync(
                post(urls.get(1) + "/api/checks/hold/" + key + "/" + HELD_MILLIS));
        String busy;
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        do {
            busy = http.send(post(urls.get(0) + "/api/checks/fault-tolerance/or-busy/" + key)).body();
        } while (!busy.equals("busy") && !holder.isDone() && System.nanoTime() < deadline);
        // A first caller waits for the key on the first server; Fault Tolerance turns a second away before it waits.
        java.util.concurrent.CompletableFuture<ShopHttp.Answer> waiting = http.sendAsync(
                post(urls.get(0) + "/api/checks/fault-tolerance/one-at-a-time/" + key));
        sleep(150);
        long bulkheadStarted = System.nanoTime();
        ShopHttp.Answer turnedAway = http.send(post(urls.get(0) + "/api/checks/fault-tolerance/one-at-a-time/" + key));
        long turnedAwayMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - bulkheadStarted);
        long waitStarted = System.nanoTime();
        ShopHttp.Answer timed = http.send(post(urls.get(0) + "/api/checks/fault-tolerance/timed-wait/" + key));
        long waitedMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - waitStarted);
        ShopHttp.Answer retried = http.send(post(urls.get(0) + "/api/checks/fault-tolerance/retried/" + key));
        long retriedAtMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        ShopHttp.Answer held = holder.join();
        ShopHttp.Answer waited = waiting.join();
        System.out.println(runtime + ": Fault Tolerance outside the lock, the key held " + HELD_MILLIS + " ms on the other server: @Fallback "
                + busy + "; @Bulkhead(1) second caller " + turnedAway.body() + " in " + turnedAwayMillis + " ms, first " + waited.body()
                + "; @Timeout(300) " + timed.body() + " after " + waitedMillis + " ms; @Retry " + retried.body() + " at "
                + retriedAtMillis + " ms; holder " + held.body());
        assertEquals("turned away", turnedAway.body(), "the bulkhead turns the second caller away: " + turnedAway);
        assertEquals("served", waited.body(), "the bulkhead's first caller, once the key is free: " + waited);
        org.junit.jupiter.api.Assertions.assertTrue(turnedAwayMillis < 1_000, "turned away after " + turnedAwayMillis
                + " ms: it waited for the key first");
        assertEquals("busy", busy, "the fallback answers for a key held elsewhere");
        assertEquals("timed out", timed.body(), "the timeout ends the wait: " + timed);
        assertEquals("served", retried.body(), "the retry is served once the key is free: " + retried);
        assertEquals("held", held.body(), "the holder: " + held);
        org.junit.jupiter.api.Assertions.assertTrue(waitedMillis < 1_200, "the wait ran " + waitedMillis + " ms, not 300");
        org.junit.jupiter.api.Assertions.assertTrue(retriedAtMillis >= HELD_MILLIS, "served at " + retriedAtMillis
                + " ms, before the holder's " + HELD_MILLIS + " ms were over");
    }

    /** A storm's calls: an overlap in one call of 1,000 would likely show (two expected). */
    static final int STORM_CALLS = 2_000;
    /** The unlocked twin only has to show that the count sees overlaps. */
    static final int TWIN_CALLS = 200;
    private static final int STORM_KEYS = 4;
    private static final int STORM_CLIENTS = 16;

    /**
     * Concurrency's {@code @Asynchronous} on a locked method, on the executor that
     * {@code @ManagedExecutorDefinition(virtual = true)} defines ({@code /api/checks/virtual}):
     * {@link #STORM_CALLS} calls over both servers on {@value #STORM_KEYS} keys, each on a thread of
     * {@code threads} ({@code virtual} where Concurrency 3.1 runs on a JDK 21+, {@code platform} on
     * Concurrency 3.0), and no two regions of one key overlap (each call reports when it entered and
     * left, on the machine's one clock); the twin without the lock overlaps.
     */
    static void assertAsynchronousNeverOverlaps(ShopHttp http, List<String> urls, String runtime, String threads) {
        assertStormNeverOverlaps(http, urls, runtime, "virtual", "Concurrency @Asynchronous on @ManagedExecutorDefinition(virtual = true)", threads);
    }

    /**
     * Fault Tolerance's {@code @Retry(retryOn = LockTimeoutException.class)} outside a lock that
     * tries once ({@code /api/checks/retried}): {@link #STORM_CALLS} calls over both servers on
     * {@value #STORM_KEYS} keys, each retried until it holds its key, and no two regions of one key
     * overlap; the twin, neither locked nor retried, overlaps.
     */
    static void assertRetryStormNeverOverlaps(ShopHttp http, List<String> urls, String runtime) {
        assertStormNeverOverlaps(http, urls, runtime, "retried", "@Retry of a lock timeout (waitTime = 0)", "platform");
    }

    /**
     * Fault Tolerance's {@code @Asynchronous} outside the lock ({@code /api/checks/ft-asynchronous}),
     * each call's stage completed a millisecond after its method returned, on another thread:
     * {@link #STORM_CALLS} calls, and no two regions of one key overlap — the lock is held until the
     * stage completes; the twin without the lock overlaps.
     */
    static void assertFaultToleranceAsynchronousNeverOverlaps(ShopHttp http, List<String> urls, String runtime) {
        assertStormNeverOverlaps(http, urls, runtime, "ft-asynchronous", "Fault Tolerance @Asynchronous, the stage completed later", "platform");
    }

    private static void assertStormNeverOverlaps(ShopHttp http, List<String> urls, String runtime, String check, String what, String threads) {
        String prefix = E2eShop.uniqueSku(check.toUpperCase(java.util.Locale.ROOT));
        Map<String, Integer> kinds = new TreeMap<>();
        long overlaps = overlaps(http, urls, check, "locked", prefix, STORM_CALLS, kinds);
        Map<String, Integer> twinKinds = new TreeMap<>();
        long twinOverlaps = overlaps(http, urls, check, "unlocked", prefix + "-TWIN", TWIN_CALLS, twinKinds);
        System.out.println(runtime + ": " + what + ", " + STORM_CALLS + " locked calls on " + STORM_KEYS
                + " keys over " + urls.size() + " servers: " + kinds + ", overlaps " + overlaps + "; twin without the lock: "
                + TWIN_CALLS + " calls " + twinKinds + ", overlaps " + twinOverlaps);
        assertEquals(Map.of("200 " + threads, STORM_CALLS), kinds, "every locked call served, on a " + threads + " thread");
        assertEquals(0, overlaps, "two holders of one key at once");
        org.junit.jupiter.api.Assertions.assertTrue(twinOverlaps > 0, "the unlocked twin showed no overlap");
    }

    /** Runs {@code calls} calls, counts answers by status and kind, and returns how many regions began inside another of their key. */
    private static long overlaps(ShopHttp http, List<String> urls, String check, String locking, String prefix, int calls,
                                 Map<String, Integer> kinds) {
        Map<String, List<long[]>> regions = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(STORM_CLIENTS);
        try {
            List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>();
            for (int i = 0; i < calls; i++) {
                String url = urls.get(i % urls.size());
                String key = prefix + "-" + (i % STORM_KEYS);
                sent.add(clients.submit(() -> {
                    ShopHttp.Answer answer = http.send(post(url + "/api/checks/" + check + "/" + locking + "/" + key));
                    String[] parts = answer.body().split(" ");
                    synchronized (kinds) {
                        kinds.merge(answer.status() + " " + (answer.status() == 200 ? parts[0] : answer.body()), 1, Integer::sum);
                    }
                    if (answer.status() == 200 && parts.length == 3) {
                        regions.computeIfAbsent(key, k -> java.util.Collections.synchronizedList(new java.util.ArrayList<>()))
                                .add(new long[]{Long.parseLong(parts[1]), Long.parseLong(parts[2])});
                    }
                }));
            }
            for (java.util.concurrent.Future<?> call : sent) {
                call.get(5, java.util.concurrent.TimeUnit.MINUTES);
            }
        } catch (Exception e) {
            throw new AssertionError("the " + check + " storm failed", e);
        } finally {
            clients.shutdownNow();
        }
        long overlaps = 0;
        for (List<long[]> ofKey : regions.values()) {
            List<long[]> sorted = new java.util.ArrayList<>(ofKey);
            sorted.sort(java.util.Comparator.comparingLong(region -> region[0]));
            long latestLeft = Long.MIN_VALUE;
            for (long[] region : sorted) {
                if (region[0] < latestLeft) {
                    overlaps++;
                }
                latestLeft = Math.max(latestLeft, region[1]);
            }
        }
        return overlaps;
    }

    /**
     * {@code @CircuitBreaker(failOn = LockServiceUnavailableException.class)} outside the lock: with
     * the servers' Redis killed, it opens after four calls that found the store down (the next calls
     * are answered without asking it), and closes once Redis is back.
     */
    static void assertCircuitBreakerOpensWhileRedisIsDown(ShopHttp http, String url, dev.distlock.testkit.RedisProcess redis,
                                                          String runtime) {
        String path = url + "/api/checks/fault-tolerance/guarded/" + E2eShop.uniqueSku("BREAKER");
        List<String> seen = new java.util.ArrayList<>();
        redis.kill();
        try {
            for (int i = 0; i < 6; i++) {
                seen.add(http.send(post(path)).body());
            }
        } finally {
            redis.start();
        }
        long restarted = System.nanoTime();
        long deadline = restarted + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        String after;
        do {
            sleep(100);
            after = http.send(post(path)).body();
        } while (!after.equals("served") && System.nanoTime() < deadline);
        long closedMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted);
        System.out.println(runtime + ": @CircuitBreaker outside the lock, Redis killed: " + seen + "; Redis back: " + after
                + " after " + closedMillis + " ms");
        assertEquals(List.of("unavailable", "unavailable", "unavailable", "unavailable", "open", "open"), seen,
                "the breaker opens after four calls that found Redis down");
        assertEquals("served", after, "the breaker closes once Redis is back");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static HttpRequest post(String url) {
        return ShopHttp.request(url).header("Accept", "text/plain").POST(HttpRequest.BodyPublishers.noBody()).build();
    }

    private static void count(Map<String, Map<String, Integer>> answers, String check, ShopHttp.Answer answer) {
        answers.computeIfAbsent(check, c -> new TreeMap<>()).merge(answer.status() + " " + answer.body(), 1, Integer::sum);
    }
}
