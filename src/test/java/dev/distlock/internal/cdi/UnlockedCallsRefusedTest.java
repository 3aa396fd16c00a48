package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestConfig;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RedissonClient;

import java.util.Map;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A method that carries a lock annotation never runs unlocked: where the container would not
 * intercept its calls, the deployment fails and names the class. Each case runs through the
 * portable extension (full CDI) and the build compatible one (CDI Lite); the twin at the end turns
 * the check off and shows the same application running the method without the lock.
 */
class UnlockedCallsRefusedTest {

    static final String PREFIX = TestRedis.uniquePrefix("unlocked");

    /** Has a lock but no constructor the container can call: only ever made with {@code new}. */
    public static class MadeWithNew {
        @Inject
        RedissonClient redis;

        public MadeWithNew(String label) {
        }

        @Locked("stock:{sku}")
        public boolean lockedWhileRunning(String sku) {
            return redis.getLock(PREFIX + ":lock:stock:" + sku).isLocked();
        }
    }

    /** A class with a lock, made by a producer: what a producer returns is not intercepted. */
    public static class Counter {
        RedissonClient redis;

        @Locked("stock:{sku}")
        public boolean lockedWhileRunning(String sku) {
            return redis.getLock(PREFIX + ":lock:stock:" + sku).isLocked();
        }
    }

    @Dependent
    public static class CounterFactory {
        @Inject
        RedissonClient redis;

        @Produces
        @Named("counter")
        @ApplicationScoped
        Counter counter() {
            Counter counter = new Counter();
            counter.redis = redis;
            return counter;
        }
    }

    /** An interface whose method carries the lock, which its implementations do not inherit. */
    public interface LockedInterface {
        @Locked("stock:{sku}")
        boolean reserve(String sku);
    }

    @ApplicationScoped
    public static class LockedInterfaceBean implements LockedInterface {
        @Override
        public boolean reserve(String sku) {
            return true;
        }
    }

    @ApplicationScoped
    public static class Fine {
        @Locked("stock:{sku}")
        public boolean reserve(String sku) {
            return true;
        }
    }

    private static final Map<String, String> CONFIG = Map.of("distlock.key-prefix", PREFIX);

    private static BiFunction<Map<String, String>, Class<?>[], DistlockWeld> runtime(String kind) {
        return kind.equals("full") ? DistlockWeld::start : DistlockWeld::startLite;
    }

    @ParameterizedTest
    @ValueSource(strings = {"full", "lite"})
    void aLockedClassThatIsNotABeanFailsTheDeployment(String kind) {
        String message = failure(kind, MadeWithNew.class);
        assertTrue(message.contains(MadeWithNew.class.getName() + " carries lock annotations but is not a bean the container intercepts"),
                message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"full", "lite"})
    void aLockedClassMadeByAProducerFailsTheDeployment(String kind) {
        String message = failure(kind, CounterFactory.class);
        assertTrue(message.contains(Counter.class.getName() + " carries lock annotations but the producer"), message);
        assertTrue(message.contains("does not intercept what a producer returns"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"full", "lite"})
    void aLockOnAnInterfaceMethodFailsTheDeployment(String kind) {
        String message = failure(kind, LockedInterfaceBean.class);
        assertTrue(message.contains("@Locked on LockedInterface.reserve(String): an interface's method annotations are not inherited"), message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"full", "lite"})
    void aLockedBeanDeploys(String kind) {
        try (DistlockWeld weld = runtime(kind).apply(CONFIG, new Class<?>[] {TestRedisClient.class, Fine.class})) {
            assertTrue(weld.bean(Fine.class).reserve("A"));
        }
    }

    /** distlock's own interceptor vetoed by the application: its locked beans are refused. */
    public static class VetoLockInterceptor implements Extension {
        void veto(@Observes ProcessAnnotatedType<LockedInterceptor> type) {
            type.veto();
        }
    }

    @Test
    void aLockedBeanWithoutDistlocksInterceptorFailsTheDeployment() {
        try (TestConfig config = TestConfig.with(CONFIG)) {
            RuntimeException failure = assertThrows(RuntimeException.class, () -> new Weld().disableDiscovery().containerId(null)
                    .addExtension(new DistlockExtension()).addExtension(new VetoLockInterceptor())
                    .addBeanClasses(TestRedisClient.class, Fine.class).initialize().shutdown());
            String message = DistlockWeld.messages(failure);
            assertTrue(message.contains(Fine.class.getName() + " uses @Locked but distlock's interceptor for it is not enabled"), message);
        }
    }

    /** The twin: the check off, the producer's object runs its locked method without the lock. */
    static class PermissiveExtension extends DistlockExtension {
        @Override
        boolean refusesUnlockedCalls() {
            return false;
        }
    }

    @Test
    void withoutTheCheckTheProducedObjectRunsUnlocked() {
        try (TestConfig config = TestConfig.with(CONFIG)) {
            WeldContainer container = new Weld().disableDiscovery().containerId(null)
                    .addExtension(new PermissiveExtension())
                    .addBeanClasses(TestRedisClient.class, CounterFactory.class).initialize();
            try {
                Counter counter = container.select(Counter.class).get();
                assertFalse(counter.lockedWhileRunning("twin"), "the produced object's locked method ran without its lock");
            } finally {
                container.shutdown();
            }
        }
    }

    private static String failure(String kind, Class<?> bean) {
        RuntimeException failure = assertThrows(RuntimeException.class,
                () -> runtime(kind).apply(CONFIG, new Class<?>[] {TestRedisClient.class, bean}).close(), "the deployment should have failed");
        return DistlockWeld.messages(failure);
    }
}
