package dev.distlock.internal.cdi;

import dev.distlock.testing.IdTestDatabase;

import dev.distlock.Locked;
import dev.distlock.id.DailySerial;
import dev.distlock.id.DailySerials;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.LiteExtension;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestConfig;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.build.compatible.spi.Discovery;
import jakarta.enterprise.inject.build.compatible.spi.Enhancement;
import jakarta.enterprise.inject.build.compatible.spi.Registration;
import jakarta.enterprise.inject.build.compatible.spi.SkipIfPortableExtensionPresent;
import jakarta.enterprise.inject.build.compatible.spi.Synthesis;
import jakarta.enterprise.inject.build.compatible.spi.Validation;
import jakarta.inject.Inject;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.lite.extension.translator.LiteExtensionTranslator;
import org.junit.jupiter.api.Test;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * distlock through its build compatible extension alone, as on a CDI Lite runtime (Quarkus), run
 * here by Weld's translator against a real Redis: locks taken, ids injected, and the portable
 * extension wins where both are present.
 */
class CdiLiteTest {

    private static final String PREFIX = TestRedis.uniquePrefix("lite");

    @ApplicationScoped
    public static class Turns {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();

        @Locked("turn:{0}")
        public void take(String key, CountDownLatch bothStarted) throws InterruptedException {
            int now = inside.incrementAndGet();
            most.accumulateAndGet(now, Math::max);
            bothStarted.countDown();
            bothStarted.await(300, TimeUnit.MILLISECONDS);
            inside.decrementAndGet();
        }

        public int most() {
            return most.get();
        }

        public void reset() {
            most.set(0);
        }
    }

    @Dependent
    public static class Orders {
        @Inject
        @GeneratedId(value = "lite-order", strategy = IdStrategy.SNOWFLAKE)
        IdGenerator ids;
    }

    @Dependent
    public static class Invoices {
        @Inject
        @GeneratedId("lite-invoice")
        DailySerials numbers;
    }

    @Dependent
    public static class InvoiceIds {
        @Inject
        @GeneratedId("lite-invoice")
        IdGenerator ids;
    }

    @Test
    void dailySerialsAreInjected() {
        try (DistlockWeld weld = DistlockWeld.startLite(Map.of("distlock.key-prefix", PREFIX,
                        IdTestDatabase.URL_KEY, IdTestDatabase.uniqueUrl("lite-serials"), "distlock.id.lite-invoice.format",
                        "L-{date:yyyyMMdd}-{serial:4}"),
                TestRedisClient.class, IdTestDatabase.class, Invoices.class)) {
            DailySerials numbers = weld.bean(Invoices.class).numbers;
            DailySerial first = numbers.next();
            DailySerial second = numbers.next();
            assertEquals("L-" + first.day().toString().replace("-", "") + "-0001", first.text());
            assertTrue(second.serial() == 2 || !second.day().equals(first.day()), first + " then " + second);
        }
    }

    /** The build compatible extension tells DailySerials from ids too: one name as both fails the start. */
    @Test
    void oneNameAsSerialsAndAsIdsFailsTheStart() {
        RuntimeException failure = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                () -> DistlockWeld.startLite(Map.of("distlock.key-prefix", PREFIX, IdTestDatabase.URL_KEY,
                        IdTestDatabase.uniqueUrl("lite-serials")), TestRedisClient.class, IdTestDatabase.class, Invoices.class,
                        InvoiceIds.class).close());
        String message = DistlockWeld.messages(failure);
        assertTrue(message.contains("@GeneratedId(\"lite-invoice\")") && message.contains("one name is one generator"), message);
    }

    @Test
    void theLockIsHeldWhileTheMethodRuns() {
        try (DistlockWeld weld = DistlockWeld.startLite(Map.of("distlock.key-prefix", LockedInterceptorSmokeTest.prefix),
                TestRedisClient.class, LockedInterceptorSmokeTest.LockReporter.class)) {
            assertTrue(weld.bean(LockedInterceptorSmokeTest.LockReporter.class).lockedWhileRunning("lite-1"));
        }
    }

    /** Same key: one at a time. The twin, two keys, shows that the count sees an overlap when there is one. */
    @Test
    void twoCallsOfOneKeyTakeTurnsAndOfTwoKeysOverlap() throws Exception {
        try (DistlockWeld weld = DistlockWeld.startLite(Map.of("distlock.key-prefix", PREFIX), TestRedisClient.class, Turns.class)) {
            Turns turns = weld.bean(Turns.class);
            assertEquals(1, mostInside(turns, "same", "same"), "two calls of one key were inside at once");
            assertEquals(2, mostInside(turns, "left", "right"), "two keys should not wait for each other");
        }
    }

    private static int mostInside(Turns turns, String first, String second) throws Exception {
        turns.reset();
        CountDownLatch bothStarted = new CountDownLatch(2);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> a = threads.submit(() -> {
                turns.take(first, bothStarted);
                return null;
            });
            Future<?> b = threads.submit(() -> {
                turns.take(second, bothStarted);
                return null;
            });
            a.get(30, TimeUnit.SECONDS);
            b.get(30, TimeUnit.SECONDS);
            return turns.most();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void generatedIdsAreInjected() {
        try (DistlockWeld weld = DistlockWeld.startLite(Map.of("distlock.key-prefix", PREFIX), TestRedisClient.class, Orders.class)) {
            IdGenerator ids = weld.bean(Orders.class).ids;
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < 1_000; i++) {
                assertTrue(seen.add(ids.nextId()), "an id came twice");
            }
        }
    }

    /** As on Payara or WildFly, where Weld finds both extensions: the portable one alone registers distlock. */
    @Test
    void withBothExtensionsThePortableOneAloneRuns() {
        try (TestConfig config = TestConfig.with(Map.of("distlock.key-prefix", LockedInterceptorSmokeTest.prefix))) {
            WeldContainer container = new Weld().disableDiscovery().containerId(null)
                    .addExtension(new DistlockExtension())
                    .addExtension(new LiteExtensionTranslator(List.of(DistlockBuildExtension.class), getClass().getClassLoader()))
                    .addBeanClasses(TestRedisClient.class, LockedInterceptorSmokeTest.LockReporter.class).initialize();
            try {
                assertEquals(1, container.getBeanManager().getBeans(DistlockSetup.class).size());
                assertEquals(1, container.getBeanManager().getBeans(LockInterception.class).size());
                assertTrue(container.select(LockedInterceptorSmokeTest.LockReporter.class).get().lockedWhileRunning("both-1"));
            } finally {
                container.shutdown();
            }
        }
    }

    /** The tests' copy of the build compatible extension declares the same phases as the real one, minus the skip. */
    @Test
    void theTestsCopyMirrorsTheExtension() {
        assertNotNull(DistlockBuildExtension.class.getAnnotation(SkipIfPortableExtensionPresent.class));
        List<Class<? extends Annotation>> phases = List.of(Discovery.class, Enhancement.class, Registration.class, Synthesis.class,
                Validation.class);
        int compared = 0;
        for (Method method : DistlockBuildExtension.class.getDeclaredMethods()) {
            for (Class<? extends Annotation> phase : phases) {
                Annotation real = method.getAnnotation(phase);
                if (real == null) {
                    continue;
                }
                Method copy = Arrays.stream(LiteExtension.class.getDeclaredMethods())
                        .filter(m -> m.getName().equals(method.getName()))
                        .findFirst().orElseThrow(() -> new AssertionError("LiteExtension lacks " + method.getName()));
                assertEquals(real, copy.getAnnotation(phase), method.getName());
                compared++;
            }
        }
        assertEquals(LiteExtension.class.getDeclaredMethods().length, compared, "LiteExtension declares a method the extension lacks");
    }
}
