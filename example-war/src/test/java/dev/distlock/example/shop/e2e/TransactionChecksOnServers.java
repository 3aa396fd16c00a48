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
 * enter its lock while the call's stage is unfinished; and Fault Tolerance outside the lock acts on
 * it ({@link #assertFaultToleranceOutsideTheLock}).
 */
final class TransactionChecksOnServers {

    /** Calls of each check per server. */
    static final int CALLS = 8;

    private TransactionChecksOnServers() {
    }

    /** Runs both checks on every server; prints and returns what they answered, by check. */
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
        return answers;
    }

    /** How long the other server holds the key the Fault Tolerance checks ask for. */
    private static final long HELD_MILLIS = 1_500;

    /**
     * The shop's Fault Tolerance runs outside the lock ({@code mp.fault.tolerance.interceptor.priority=50}):
     * while the second server holds a key, on the first a fallback answers {@code busy} at once, a
     * {@code @Timeout(300)} ends a 10 s wait, and a {@code @Retry(retryOn = LockTimeoutException.class)}
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
        long waitStarted = System.nanoTime();
        ShopHttp.Answer timed = http.send(post(urls.get(0) + "/api/checks/fault-tolerance/timed-wait/" + key));
        long waitedMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - waitStarted);
        ShopHttp.Answer retried = http.send(post(urls.get(0) + "/api/checks/fault-tolerance/retried/" + key));
        long retriedAtMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        ShopHttp.Answer held = holder.join();
        System.out.println(runtime + ": Fault Tolerance outside the lock, the key held " + HELD_MILLIS + " ms on the other server: @Fallback "
                + busy + "; @Timeout(300) " + timed.body() + " after " + waitedMillis + " ms; @Retry " + retried.body() + " at "
                + retriedAtMillis + " ms; holder " + held.body());
        assertEquals("busy", busy, "the fallback answers for a key held elsewhere");
        assertEquals("timed out", timed.body(), "the timeout ends the wait: " + timed);
        assertEquals("served", retried.body(), "the retry is served once the key is free: " + retried);
        assertEquals("held", held.body(), "the holder: " + held);
        org.junit.jupiter.api.Assertions.assertTrue(waitedMillis < 1_200, "the wait ran " + waitedMillis + " ms, not 300");
        org.junit.jupiter.api.Assertions.assertTrue(retriedAtMillis >= HELD_MILLIS, "served at " + retriedAtMillis
                + " ms, before the holder's " + HELD_MILLIS + " ms were over");
    }

    private static HttpRequest post(String url) {
        return ShopHttp.request(url).header("Accept", "text/plain").POST(HttpRequest.BodyPublishers.noBody()).build();
    }

    private static void count(Map<String, Map<String, Integer>> answers, String check, ShopHttp.Answer answer) {
        answers.computeIfAbsent(check, c -> new TreeMap<>()).merge(answer.status() + " " + answer.body(), 1, Integer::sum);
    }
}
