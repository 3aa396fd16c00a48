package dev.distlock.internal.cdi.observability;

import dev.distlock.DistributedLocks;
import dev.distlock.LockContext;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each locked call is a span on the current trace (through Weld, a real Redis and OpenTelemetry's
 * SDK): named by its key's template, with the wait, where the lock came from, the fencing token and
 * the outcome, and never the key's values.
 */
class LockSpansTest {

    static final List<SpanData> EXPORTED = new CopyOnWriteArrayList<>();
    static volatile Sampler sampler = Sampler.alwaysOn();
    /** The runtime's SDK is off: its OpenTelemetry is the API's no-op one. */
    static volatile boolean sdkOff;

    private static final AttributeKey<String> METHOD = AttributeKey.stringKey("distlock.lock.method");
    private static final AttributeKey<String> TEMPLATE = AttributeKey.stringKey("distlock.lock.template");
    private static final AttributeKey<String> MODE = AttributeKey.stringKey("distlock.lock.mode");
    private static final AttributeKey<String> SOURCE = AttributeKey.stringKey("distlock.lock.source");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("distlock.lock.outcome");
    private static final AttributeKey<Double> WAIT = AttributeKey.doubleKey("distlock.lock.wait");
    private static final AttributeKey<Long> TOKEN = AttributeKey.longKey("distlock.lock.token");
    private static final AttributeKey<String> NODE = AttributeKey.stringKey("distlock.lock.node");

    /** The application's OpenTelemetry, as MicroProfile Telemetry offers it: every finished span kept here. */
    @ApplicationScoped
    public static class Telemetry {
        private final SdkTracerProvider tracers = SdkTracerProvider.builder()
                        .setSampler(sampler)
                        .addSpanProcessor(SimpleSpanProcessor.create(new SpanExporter() {
                            @Override
                            public CompletableResultCode export(Collection<SpanData> spans) {
                                EXPORTED.addAll(spans);
                                return CompletableResultCode.ofSuccess();
                            }

                            @Override
                            public CompletableResultCode flush() {
                                return CompletableResultCode.ofSuccess();
                            }

                            @Override
                            public CompletableResultCode shutdown() {
                                return CompletableResultCode.ofSuccess();
                            }
                        }))
                        .build();

        @Produces
        OpenTelemetry openTelemetry() {
            if (sdkOff) {
                return OpenTelemetry.noop();
            }
            return new OpenTelemetry() {
                @Override
                public TracerProvider getTracerProvider() {
                    return tracers;
                }

                @Override
                public ContextPropagators getPropagators() {
                    return ContextPropagators.noop();
                }
            };
        }
    }

    @ApplicationScoped
    public static class Shop {
        @Inject
        Shelf shelf;
        @Inject
        LockContext lock;
        @Inject
        RedissonClient redis;

        @Locked("sku:{sku}")
        public void order(String sku, int quantity) {
        }

        @Locked(value = "sku:{sku}", waitTime = 100)
        public void hurry(String sku) {
        }

        @Locked("sku:{sku}")
        public void hold(String sku, CountDownLatch inside, CountDownLatch leave) throws InterruptedException {
            inside.countDown();
            assertTrue(leave.await(10, TimeUnit.SECONDS));
        }

        @Locked(value = "stock:{sku}", fenced = true)
        public long fenced(String sku) {
            return lock.fencingToken().orElseThrow();
        }

        /** The same key again, through another bean: reentered. */
        @Locked("sku:{sku}")
        public void restock(String sku) {
            shelf.fill(sku);
        }

        /** The key is deleted from Redis while the method runs: found gone at release. */
        @Locked("sku:{sku}")
        public void loseIt(String sku, String lockName) {
            assertTrue(redis.getKeys().delete(lockName) == 1, "the lock was not in Redis as " + lockName);
        }
    }

    @ApplicationScoped
    public static class Shelf {
        @Locked("sku:{sku}")
        public void fill(String sku) {
        }
    }

    private final String prefix = TestRedis.uniquePrefix("spans");
    private DistlockWeld weld;
    private Shop shop;

    @BeforeEach
    void start() {
        EXPORTED.clear();
        // A holder in the handoff test keeps its lock longer than the default 50 ms window of handoffs.
        weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix, "distlock.handoff.max-time", "PT10S",
                        "distlock.node-name", "shop-7"),
                TestRedisClient.class, Telemetry.class, Shop.class, Shelf.class);
        shop = weld.bean(Shop.class);
    }

    @AfterEach
    void stop() {
        weld.close();
        sampler = Sampler.alwaysOn();
        sdkOff = false;
    }

    @Test
    void aLockedCallIsAChildOfTheCurrentSpanNamedByItsTemplate() {
        Span request = weld.bean(OpenTelemetry.class).getTracer("test").spanBuilder("GET /orders").startSpan();
        try (Scope ignored = request.makeCurrent()) {
            shop.order("MUG-SECRET-42", 1);
        } finally {
            request.end();
        }
        SpanData lock = only("lock sku:{sku}");
        assertEquals(request.getSpanContext().getTraceId(), lock.getTraceId());
        assertEquals(request.getSpanContext().getSpanId(), lock.getParentSpanId());
        assertEquals("Shop.order(String,int)", lock.getAttributes().get(METHOD));
        assertEquals("sku:{sku}", lock.getAttributes().get(TEMPLATE));
        assertEquals("exclusive", lock.getAttributes().get(MODE));
        assertEquals("store", lock.getAttributes().get(SOURCE));
        assertEquals("acquired", lock.getAttributes().get(OUTCOME));
        assertEquals("shop-7", lock.getAttributes().get(NODE), "the server holding it, by its distlock.node-name");
        assertNull(lock.getAttributes().get(TOKEN), "an unfenced lock has no token");
        double wait = lock.getAttributes().get(WAIT);
        assertTrue(wait >= 0 && wait * 1e9 <= lock.getEndEpochNanos() - lock.getStartEpochNanos(), "wait " + wait + " s: " + lock);
        assertEquals(StatusCode.UNSET, lock.getStatus().getStatusCode());
        assertFalse(lock.toString().contains("SECRET"), "the span holds the key's value: " + lock);
    }

    @Test
    void aTimeoutIsAnErrorWithTheWaitAndNoSource() throws Exception {
        CountDownLatch leave = new CountDownLatch(1);
        CompletableFuture<Void> holder = holding("MUG", leave);
        assertThrows(LockTimeoutException.class, () -> shop.hurry("MUG"));
        leave.countDown();
        holder.get(10, TimeUnit.SECONDS);
        SpanData timedOut = EXPORTED.stream().filter(s -> "Shop.hurry(String)".equals(s.getAttributes().get(METHOD))).findFirst().orElseThrow();
        assertEquals("timed_out", timedOut.getAttributes().get(OUTCOME));
        assertEquals(StatusCode.ERROR, timedOut.getStatus().getStatusCode());
        assertNull(timedOut.getAttributes().get(SOURCE), "it never held the lock");
        assertTrue(timedOut.getAttributes().get(WAIT) >= 0.09, timedOut.toString());
    }

    @Test
    void aLockHandedOnInThisJvmIsLocal() throws Exception {
        CountDownLatch leave = new CountDownLatch(1);
        CompletableFuture<Void> holder = holding("CUP", leave);
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> shop.order("CUP", 1));
        Thread.sleep(300); // the waiter queues in this JVM behind the holder
        leave.countDown();
        holder.get(10, TimeUnit.SECONDS);
        waiter.get(10, TimeUnit.SECONDS);
        SpanData handedOn = only("lock sku:{sku}", "Shop.order(String,int)");
        assertEquals("local", handedOn.getAttributes().get(SOURCE));
        assertTrue(handedOn.getAttributes().get(WAIT) >= 0.2, handedOn.toString());
    }

    @Test
    void aFencedLockRecordsItsToken() {
        long token = shop.fenced("PEN");
        SpanData fenced = only("lock stock:{sku}");
        assertEquals(token, fenced.getAttributes().get(TOKEN));
    }

    @Test
    void aNestedCallOnTheSameKeyIsReentered() {
        shop.restock("INK");
        assertEquals("reentered", only("lock sku:{sku}", "Shelf.fill(String)").getAttributes().get(SOURCE));
        assertEquals("store", only("lock sku:{sku}", "Shop.restock(String)").getAttributes().get(SOURCE));
    }

    @Test
    void aLockFoundGoneAtReleaseIsLost() {
        assertThrows(LockLostException.class, () -> shop.loseIt("BAG", prefix + ":lock:sku:BAG"));
        SpanData lost = only("lock sku:{sku}");
        assertEquals("lost", lost.getAttributes().get(OUTCOME));
        assertEquals("store", lost.getAttributes().get(SOURCE));
        assertEquals(StatusCode.ERROR, lost.getStatus().getStatusCode());
    }

    @Test
    void theProgrammaticApiRecordsItsSiteButNoKey() throws Exception {
        weld.bean(DistributedLocks.class).exclusive("order:SECRET-7").call(() -> null);
        SpanData span = only("lock DistributedLocks.exclusive(...)");
        assertNull(span.getAttributes().get(TEMPLATE));
        assertFalse(span.toString().contains("SECRET"), span.toString());
    }

    @Test
    void aCallOnATraceNotSampledRecordsNothing() {
        weld.close();
        sampler = Sampler.alwaysOff();
        weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix), TestRedisClient.class, Telemetry.class, Shop.class, Shelf.class);
        weld.bean(Shop.class).order("MUG", 1);
        assertEquals(List.of(), EXPORTED);
    }

    @Test
    void withTheSdkOffNoSpanIsEvenBegun() {
        assertTrue(weld.bean(LockTracer.class).begin("Shop.order(String,int)", LockMode.EXCLUSIVE, "sku:{sku}") != null,
                "the twin: with the SDK on, a call is traced");
        weld.close();
        sdkOff = true;
        weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix), TestRedisClient.class, Telemetry.class, Shop.class, Shelf.class);
        assertNull(weld.bean(LockTracer.class).begin("Shop.order(String,int)", LockMode.EXCLUSIVE, "sku:{sku}"));
        weld.bean(Shop.class).order("MUG", 1);
    }

    @Test
    void tracingTurnedOffRecordsNothing() {
        weld.close();
        weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix, "distlock.tracing.enabled", "false"),
                TestRedisClient.class, Telemetry.class, Shop.class, Shelf.class);
        weld.bean(Shop.class).order("MUG", 1);
        assertEquals(List.of(), EXPORTED);
    }

    @Test
    void anInvalidTracingSettingFailsTheDeployment() {
        weld.close();
        RuntimeException refused = assertThrows(RuntimeException.class, () -> DistlockWeld.start(
                Map.of("distlock.key-prefix", prefix, "distlock.tracing.enabled", "sometimes"),
                TestRedisClient.class, Telemetry.class, Shop.class, Shelf.class));
        assertTrue(DistlockWeld.messages(refused).contains("Config distlock.tracing.enabled=sometimes: must be true or false"),
                DistlockWeld.messages(refused));
        weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix), TestRedisClient.class, Telemetry.class, Shop.class, Shelf.class);
    }

    /** Calls {@code Shop.hold(sku)} on another thread and returns once it holds the lock, until {@code leave}. */
    private CompletableFuture<Void> holding(String sku, CountDownLatch leave) throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            try {
                shop.hold(sku, inside, leave);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(inside.await(10, TimeUnit.SECONDS), "the holder never took the lock");
        return holder;
    }

    private static SpanData only(String name) {
        List<SpanData> named = EXPORTED.stream().filter(s -> s.getName().equals(name)).toList();
        assertEquals(1, named.size(), "spans named " + name + ": " + EXPORTED);
        return named.get(0);
    }

    private static SpanData only(String name, String method) {
        List<SpanData> named = EXPORTED.stream().filter(s -> s.getName().equals(name) && method.equals(s.getAttributes().get(METHOD))).toList();
        assertEquals(1, named.size(), "spans named " + name + " of " + method + ": " + EXPORTED);
        return named.get(0);
    }
}
