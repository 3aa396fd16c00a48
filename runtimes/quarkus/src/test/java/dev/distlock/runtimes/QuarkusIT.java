package dev.distlock.runtimes;

import dev.distlock.testkit.Ports;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * distlock on Quarkus: CDI Lite, so its build compatible extension and no portable extension. The
 * application is built by quarkus-maven-plugin (target/quarkus-app) and started with {@code java -jar}.
 */
class QuarkusIT extends RuntimeChecks {

    /** Twice the review's 200 calls, all in flight at once: without the lock, 196 of its 200 overlapped. */
    private static final int UNI_CALLS = 400;
    private static final int UNI_TWIN_CALLS = 200;
    private static final int UNI_KEYS = 4;
    /**
     * Subscribing on the event loop hands the wait to a worker and returns: a few milliseconds at
     * most. Waiting there for the lock would take as long as the callers queued before it hold it:
     * the storm takes seconds, and with the event loops waiting, their holders could not go on.
     */
    private static final long EVENT_LOOP_BOUND_MILLIS = 250;

    /** HTTP/1.1, a connection per call in flight: Quarkus 3.37 accepts the JDK client's upgrade to HTTP/2, whose streams per connection are bounded. */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * The shapes at 1,000 calls each here: WildFly and Open Liberty run 4,000 on two other transaction
     * managers, and the build compatible extension's commit guard runs each shape in the library's
     * {@code TransactionShapesLiteTest}; this shows it bound on Quarkus itself.
     */
    @Override
    protected int shapeCalls() {
        return 1_000;
    }

    /**
     * Issue 45: a locked method returning a {@code Uni} that Quarkus REST subscribes to, on a worker
     * ({@code @Blocking}) and on the event loop ({@code @NonBlocking}): every call in flight at once
     * over both servers and 4 keys, each counted into its key's region when its {@code Uni}'s work
     * begins and out when it ends. The lock holds until the {@code Uni} has ended: no overlap. On
     * the event loop the lock is waited for on a worker and the method runs back on the event loop:
     * subscribing holds the event loop up for milliseconds, as each instance measures.
     */
    @Test
    void aLockedUniHasOneHolderAtATimeOnAWorkerAndOnTheEventLoop() throws Exception {
        Map<String, String> results = new TreeMap<>();
        for (int i = 0; i < 2; i++) {
            send(instance(i), "GET", "/uni/longest-event-loop-subscribe"); // from here on: the locked Unis' subscriptions
        }
        for (String[] variant : new String[][] {{"worker", "locked", "ok on worker"}, {"event-loop", "locked", "ok on event loop"},
                {"worker", "locked-in-transaction", "ok on worker"}}) {
            String shape = "uni-" + variant[0] + "-" + variant[1];
            long started = System.nanoTime();
            Map<String, Integer> answers = burst("/uni/" + variant[0] + "/" + variant[1], UNI_CALLS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            long overlaps = overlaps(shape);
            System.out.println(getClass().getSimpleName() + " " + shape + ": " + UNI_CALLS + " calls at once on " + UNI_KEYS
                    + " keys over 2 servers in " + millis + " ms, answers " + answers + ", overlaps " + overlaps);
            if (overlaps != 0 || !answers.equals(Map.of("200 " + variant[2], UNI_CALLS))) {
                results.put(shape, overlaps + " overlaps, answers " + answers);
            }
        }
        assertEquals(Map.of(), results, "locked Unis had two holders at once, or ran where they should not");
        for (int i = 0; i < 2; i++) {
            long longest = Long.parseLong(send(instance(i), "GET", "/uni/longest-event-loop-subscribe").body());
            System.out.println(getClass().getSimpleName() + " instance " + i + ": subscribing held an event loop up for at most "
                    + longest + " ms");
            assertTrue(longest < EVENT_LOOP_BOUND_MILLIS, "a subscription held its event loop up for " + longest + " ms");
        }
    }

    /** The twins: the same Unis without the lock overlap, so the count would see it. */
    @Test
    void withoutTheLockTheSameUnisOverlap() throws Exception {
        for (String[] variant : new String[][] {{"worker", "unlocked"}, {"event-loop", "unlocked"}, {"worker", "in-transaction-unlocked"}}) {
            String shape = "uni-" + variant[0] + "-" + variant[1];
            Map<String, Integer> answers = burst("/uni/" + variant[0] + "/" + variant[1], UNI_TWIN_CALLS);
            long overlaps = overlaps(shape);
            System.out.println(getClass().getSimpleName() + " " + shape + ": " + UNI_TWIN_CALLS + " calls at once, answers "
                    + answers + ", overlaps " + overlaps);
            assertTrue(overlaps > 0, shape + ": the unlocked twin showed no overlap");
        }
    }

    /** {@code calls} POSTs to {@code path/k<n>} over both servers and {@link #UNI_KEYS} keys, all sent at once; @return the answers */
    private Map<String, Integer> burst(String path, int calls) throws Exception {
        Map<String, Integer> answers = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(instance(i % 2).base() + path + "/k" + (i / 2) % UNI_KEYS))
                    .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.noBody()).build();
            sent.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                    .handle((response, failure) -> failure != null ? failure.toString()
                            : response.statusCode() + " " + (response.statusCode() == 200 ? response.body() : ""))
                    .thenAccept(answer -> answers.merge(answer.strip(), 1, Integer::sum)));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
        return new TreeMap<>(answers);
    }

    /** Each locked call's lock is a span on the caller's trace (Quarkus's OpenTelemetry extension), named by its key's template. */
    @Test
    void lockedCallsAreSpansOnTheCallersTrace() throws Exception {
        assertLockSpansExported(instance(0));
    }

    /** Quarkus gives the interceptors their priorities when it builds the application. */
    @Override
    protected boolean faultToleranceMovesAtStart() {
        return false;
    }

    @Override
    protected Instance start(String name, Map<String, String> settings) throws Exception {
        int port = Ports.free();
        Path log = Path.of("target", "quarkus-" + name + ".log");
        Map<String, String> all = new HashMap<>(distlockSettings());
        all.putAll(settings);
        all.put("quarkus.http.port", Integer.toString(port));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
        all.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add("-jar");
        command.add(System.getProperty("quarkus.app", "target/quarkus-app/quarkus-run.jar"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new Instance(process, "http://127.0.0.1:" + port, log);
    }

    /** Quarkus checks the run-time configuration as it starts: the process ends with the message. */
    @Override
    protected void assertRefused(Instance broken, String message) throws Exception {
        assertTrue(broken.process().waitFor(90, TimeUnit.SECONDS), "the application started with a broken lock");
        String log = Files.readString(broken.log());
        assertNotEquals(0, broken.process().exitValue(), log);
        assertTrue(log.contains(message), log);
    }
}
