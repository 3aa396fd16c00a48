package dev.distlock.memory;

import dev.distlock.DistributedLocks;
import dev.distlock.LockDefinitionException;
import dev.distlock.LockTimeoutException;
import dev.distlock.spi.LockBackendProvider;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.Stock;
import dev.distlock.testkit.Ports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In-memory locks for applications' tests: one builder call or {@code distlock.backend=in-memory},
 * every user in the JVM sharing one store, refused outside tests unless allowed.
 */
@Timeout(60)
class InMemoryLocksTest {

    private static final int THREADS = 8;
    private static final int ROUNDS = 500;

    /** Incremented without atomicity; only the locks keep it exact. */
    private long counter;

    @Test
    void twoLocksFromTheBuilderExcludeEachOtherAsTwoServersOnOneRedisWould() throws Exception {
        try (DistributedLocks first = InMemoryLocks.builder().build();
             DistributedLocks second = InMemoryLocks.builder().build()) {
            ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS);
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 2 * THREADS; t++) {
                DistributedLocks locks = t % 2 == 0 ? first : second;
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < ROUNDS; i++) {
                        locks.exclusive("counter").waitForever().run(() -> {
                            long seen = counter;
                            Thread.onSpinWait();
                            counter = seen + 1;
                        });
                    }
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
            pool.shutdown();
            assertEquals(2L * THREADS * ROUNDS, counter, "lost updates under the in-memory lock");
        }
    }

    @Test
    void fencingTokensGrowAndWaitsTimeOutAsInRedis() {
        try (DistributedLocks locks = InMemoryLocks.builder().keyPrefix("fencing").build()) {
            long first = locks.exclusive("k").fenced().get(() -> locks.context().fencingToken().orElseThrow());
            long second = locks.exclusive("k").fenced().get(() -> locks.context().fencingToken().orElseThrow());
            assertTrue(second > first, first + " then " + second);

            LockTimeoutException timeout = assertThrows(LockTimeoutException.class, () -> otherOwnerWaits(locks));
            assertTrue(timeout.getMessage().contains("held"), timeout.getMessage());
        }
    }

    /** A second caller on another thread waits for a held lock and times out. */
    private static Object otherOwnerWaits(DistributedLocks locks) throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            return locks.exclusive("held").call(() -> other.submit((Callable<Object>) () -> {
                locks.exclusive("held").waitTime(Duration.ofMillis(50)).run(() -> { });
                return null;
            }).get());
        } catch (java.util.concurrent.ExecutionException e) {
            throw (Exception) e.getCause();
        } finally {
            other.shutdown();
        }
    }

    @Test
    void outsideATestTheStoreIsRefusedAndTheMessageSaysWhyAndWhatToDo() throws Exception {
        try (URLClassLoader withoutTestFramework = new URLClassLoader(new URL[0], null)) {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> TestsOnly.store(false, "InMemoryLocks.builder()", withoutTestFramework));
            assertTrue(refused.getMessage().contains("no test framework (JUnit, TestNG)"), refused.getMessage());
            assertTrue(refused.getMessage().contains(InMemoryLocks.ALLOWED + "=true"), refused.getMessage());

            assertSame(TestsOnly.store(false, "x", getClass().getClassLoader()), TestsOnly.store(true, "x", withoutTestFramework),
                    "allowed explicitly, or in a test: the JVM's one store");

            Thread thread = Thread.currentThread();
            ClassLoader before = thread.getContextClassLoader();
            thread.setContextClassLoader(withoutTestFramework);
            try {
                LockDefinitionException deployment = assertThrows(LockDefinitionException.class,
                        () -> new InMemoryBackendProvider().configure(settings(Optional.empty())));
                assertTrue(deployment.getMessage().startsWith("Config distlock.backend=in-memory"), deployment.getMessage());
                new InMemoryBackendProvider().configure(settings(Optional.of("true"))); // allowed: starts
                assertThrows(LockDefinitionException.class, () -> new InMemoryBackendProvider().configure(settings(Optional.of("yes"))));
            } finally {
                thread.setContextClassLoader(before);
            }
        }
    }

    private static LockBackendProvider.Settings settings(Optional<String> allowed) {
        return new LockBackendProvider.Settings() {
            @Override
            public Optional<String> value(String key) {
                return key.equals(InMemoryLocks.ALLOWED) ? allowed : Optional.empty();
            }

            @Override
            public Duration duration(String key, Duration fallback) {
                return fallback;
            }

            @Override
            public Duration answerGrace() {
                return DistributedLocks.DEFAULT_ANSWER_GRACE;
            }
        };
    }

    @Test
    void aWeldApplicationConfiguredInMemoryLocksWithoutRedis() throws Exception {
        Map<String, String> config = Map.of("distlock.backend", "in-memory",
                "distlock.redis.address", "redis://127.0.0.1:" + Ports.free()); // nobody there: must not matter
        try (DistlockWeld first = DistlockWeld.start(config, Stock.class);
             DistlockWeld second = DistlockWeld.start(config, Stock.class)) {
            Stock a = first.bean(Stock.class);
            Stock b = second.bean(Stock.class);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Stock stock = t % 2 == 0 ? a : b;
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < ROUNDS / 5; i++) {
                        stock.reserve("MUG", () -> {
                            long seen = counter;
                            Thread.onSpinWait();
                            counter = seen + 1;
                            return null;
                        });
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
            pool.shutdown();
            assertEquals((long) THREADS * (ROUNDS / 5), counter, "two containers on one in-memory store lost updates");
        }
    }
}
