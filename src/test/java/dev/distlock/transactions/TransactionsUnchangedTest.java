package dev.distlock.transactions;

import dev.distlock.testkit.CdiContainer;
import dev.distlock.testkit.TestRedis;
import dev.distlock.transactions.TransactionRoutes.Ending;
import dev.distlock.transactions.TransactionRoutes.Observation;
import dev.distlock.transactions.TransactionRoutes.Observed;
import dev.distlock.transactions.TransactionRoutes.Route;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * distlock never changes a transaction: every route by which a bean becomes {@code @Transactional}
 * ({@link TransactionRoutes}) gives the same transaction — active or not, its status, the caller's
 * or its own, committed or rolled back by its rules — with distlock's portable extension, with its
 * build compatible one, and without distlock at all, on Narayana's own {@code @Transactional}.
 */
class TransactionsUnchangedTest {

    /** Each route's bean, by its type and qualifier. */
    private static final Map<String, Class<? extends Route>> ROUTES = new LinkedHashMap<>();

    static {
        ROUTES.put("class", TransactionRoutes.OnClass.class);
        ROUTES.put("method", TransactionRoutes.OnMethod.class);
        ROUTES.put("superclass", TransactionRoutes.OnSuperclass.class);
        ROUTES.put("interface", TransactionRoutes.OnInterface.class);
        ROUTES.put("stereotype", TransactionRoutes.ByStereotype.class);
        ROUTES.put("stereotype in a stereotype", TransactionRoutes.ByNestedStereotype.class);
        ROUTES.put("another extension", TransactionRoutes.ByExtension.class);
        ROUTES.put("InterceptionFactory", TransactionRoutes.Plain.class);
    }

    private static final Map<String, String> CONFIG = Map.of("distlock.key-prefix", TestRedis.uniquePrefix("unchanged"));

    /**
     * Weld SE defines a bean's intercepting subclass once per class loader, overriding the methods
     * the first container of that class intercepts; a later container reuses it. Made first by a
     * container without distlock, {@code Steps}'s subclass calls its {@code @Locked} methods
     * straight through in every later container of the JVM, distlock's too: the comparison below
     * would compare with no lock at all, and later tests' locked calls ran unlocked
     * ({@code TransactionShapesTest} found no lock in Redis after this class had run first). So
     * the first container of these beans in a JVM is one with distlock.
     */
    @BeforeAll
    static void defineTheSubclassesWithDistlock() throws Exception {
        observe(others -> new Container(Narayana.start(CONFIG, others, beans())));
    }

    @Test
    void withThePortableExtensionEveryRouteHasTheTransactionItHasWithoutDistlock() throws Exception {
        Map<String, Observed> without = observe(TransactionsUnchangedTest::withoutDistlock);
        Map<String, Observed> with = observe(others -> new Container(Narayana.start(CONFIG, others, beans())));
        assertSame(without, with);
    }

    @Test
    void withTheBuildCompatibleExtensionEveryRouteHasTheTransactionItHasWithoutDistlock() throws Exception {
        Map<String, Observed> without = observe(TransactionsUnchangedTest::withoutDistlock);
        Map<String, Observed> with = observe(others -> new Container(Narayana.startLite(CONFIG, others, beans())));
        assertSame(without, with);
    }

    /** With the lock interceptors moved ({@code distlock.interceptor.priority}), in both extensions: still every route as without distlock. */
    @Test
    void withTheLockMovedInTheChainEveryRouteHasTheTransactionItHasWithoutDistlock() throws Exception {
        Map<String, String> moved = new java.util.HashMap<>(CONFIG);
        moved.put("distlock.interceptor.priority", "30");
        Map<String, Observed> without = observe(TransactionsUnchangedTest::withoutDistlock);
        assertSame(without, observe(others -> new Container(Narayana.start(moved, others, beans()))));
        assertSame(without, observe(others -> new Container(Narayana.startLite(moved, others, beans()))));
    }

    /** What the comparison stands on: without distlock, the routes CDI honours are transactional, and the interface is not. */
    @Test
    void withoutDistlockTheRoutesAreWhatCdiMakesThem() throws Exception {
        Map<String, Observed> without = observe(TransactionsUnchangedTest::withoutDistlock);
        ROUTES.keySet().forEach(route -> {
            Observed alone = without.get(route + ", alone, " + Ending.RETURNS);
            assertEquals(!route.equals("interface"), alone.active(), route + ": " + alone);
        });
        Observed declined = without.get("stereotype, alone, " + Ending.THROWS_DECLINED);
        assertEquals(Status.STATUS_ROLLEDBACK, declined.outcome(), "the stereotype's rollbackOn: " + declined);
        Observed tolerated = without.get("stereotype, alone, " + Ending.THROWS_TOLERATED);
        assertEquals(Status.STATUS_COMMITTED, tolerated.outcome(), "the stereotype's dontRollbackOn: " + tolerated);
    }

    static void assertSame(Map<String, Observed> without, Map<String, Observed> with) {
        List<String> changed = new ArrayList<>();
        without.forEach((call, alone) -> {
            if (!alone.equals(with.get(call))) {
                changed.add(call + ": without distlock " + alone + ", with it " + with.get(call));
            }
        });
        assertTrue(changed.isEmpty(), changed.size() + " of " + without.size() + " calls changed:\n" + String.join("\n", changed));
    }

    static Class<?>[] beans() {
        List<Class<?>> beans = new ArrayList<>(List.of(TransactionRoutes.BEANS));
        beans.add(Steps.class);
        return beans.toArray(Class<?>[]::new);
    }

    private static Container withoutDistlock(List<Extension> others) {
        return new Container(Narayana.startWithoutDistlock(others, beans()));
    }

    /**
     * Every route, alone and in a caller's transaction, ending each way: what its method saw and
     * how its transaction ended, keyed {@code <route>, <alone|in a caller's transaction>, <ending>}.
     */
    static Map<String, Observed> observe(Function<List<Extension>, Container> start) throws Exception {
        Map<String, Observed> seen = new LinkedHashMap<>();
        try (Container container = start.apply(List.of(new TransactionRoutes.AddsTransactional()))) {
            Steps steps = container.bean(Steps.class, null);
            TransactionSynchronizationRegistry registry = container.bean(TransactionSynchronizationRegistry.class, null);
            for (Map.Entry<String, Class<? extends Route>> route : ROUTES.entrySet()) {
                Route bean = container.bean(route.getValue(),
                        route.getValue() == TransactionRoutes.Plain.class ? TransactionRoutes.Factored.Literal.INSTANCE : null);
                for (Ending ending : Ending.values()) {
                    Observation alone = new Observation();
                    call(() -> {
                        bean.probe(ending, null, alone);
                        return null;
                    });
                    seen.put(route.getKey() + ", alone, " + ending, alone.observed());
                    Observation inCallers = new Observation();
                    call(() -> steps.required(() -> {
                        bean.probe(ending, registry.getTransactionKey(), inCallers);
                        return null;
                    }));
                    seen.put(route.getKey() + ", in a caller's transaction, " + ending, inCallers.observed());
                }
            }
        }
        return seen;
    }

    private static void call(Steps.Step step) {
        try {
            step.run();
        } catch (Exception expected) {
            // The ending asked for; what counts is what the transaction did.
        }
    }

    /** Either container, closed the same way. */
    record Container(AutoCloseable closeable, Function<Class<?>, Object> lookup, BeanLookup qualified) implements AutoCloseable {

        Container(dev.distlock.testing.DistlockWeld weld) {
            this(weld, weld::bean, (type, qualifier) -> weld.container().select(type, qualifier).get());
        }

        Container(CdiContainer cdi) {
            this(cdi, cdi::bean, (type, qualifier) -> cdi.container().select(type, qualifier).get());
        }

        <T> T bean(Class<T> type, Annotation qualifier) {
            return type.cast(qualifier == null ? lookup.apply(type) : qualified.select(type, qualifier));
        }

        @Override
        public void close() throws Exception {
            closeable.close();
        }
    }

    @FunctionalInterface
    interface BeanLookup {
        Object select(Class<?> type, Annotation qualifier);
    }
}
