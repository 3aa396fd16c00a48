package dev.distlock.transactions;

import dev.distlock.testkit.TestRedis;
import dev.distlock.transactions.TransactionRoutes.Observed;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.enterprise.inject.spi.configurator.AnnotatedTypeConfigurator;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InterceptorBinding;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Transactional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The twin of {@link TransactionsUnchangedTest}: an extension that reaches its interceptor by
 * adding a binding of its own to every type that carries {@code @Transactional} — as distlock's
 * did before its guard was bound by {@code @Transactional} itself — adds it to the transaction
 * manager's own interceptors too, which then bind only where both are present. The comparison
 * sees what that does: the routes the extension did not mark (stereotypes, {@code InterceptionFactory})
 * lose their transaction and its rules.
 */
class TransactionsUnchangedTwinTest {

    @InterceptorBinding
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    public @interface Marked {
        final class Literal extends AnnotationLiteral<Marked> implements Marked {
            static final Literal INSTANCE = new Literal();
            private static final long serialVersionUID = 1L;
        }
    }

    @Marked
    @Interceptor
    @Priority(Interceptor.Priority.PLATFORM_BEFORE + 201)
    public static class MarkedInterceptor {
        @AroundInvoke
        Object pass(InvocationContext invocation) throws Exception {
            return invocation.proceed();
        }
    }

    /** What distlock's extensions did before: a binding added to every type that carries {@code @Transactional}. */
    public static class MarksTransactionalTypes implements Extension {
        void mark(@Observes @WithAnnotations(Transactional.class) ProcessAnnotatedType<?> type) {
            AnnotatedTypeConfigurator<?> configurator = type.configureAnnotatedType();
            if (configurator.getAnnotated().isAnnotationPresent(Transactional.class)) {
                configurator.add(Marked.Literal.INSTANCE);
            } else {
                configurator.filterMethods(method -> method.isAnnotationPresent(Transactional.class))
                        .forEach(method -> method.add(Marked.Literal.INSTANCE));
            }
        }
    }

    /** See {@link TransactionsUnchangedTest#defineTheSubclassesWithDistlock()}. */
    @BeforeAll
    static void defineTheSubclassesWithDistlock() throws Exception {
        TransactionsUnchangedTest.defineTheSubclassesWithDistlock();
    }

    @Test
    void anExtensionThatMarksTransactionalTypesTakesTransactionsAway() throws Exception {
        Map<String, Observed> without = TransactionsUnchangedTest.observe(others ->
                new TransactionsUnchangedTest.Container(Narayana.startWithoutDistlock(others, beans())));
        Map<String, Observed> marked = TransactionsUnchangedTest.observe(others -> {
            List<Extension> more = new ArrayList<>(others);
            more.add(new MarksTransactionalTypes());
            return new TransactionsUnchangedTest.Container(Narayana.start(
                    Map.of("distlock.key-prefix", TestRedis.uniquePrefix("unchanged-twin")), more, beans()));
        });
        AssertionFailedError changed = assertThrows(AssertionFailedError.class,
                () -> TransactionsUnchangedTest.assertSame(without, marked));
        String message = changed.getMessage();
        assertTrue(message.contains("stereotype, alone, RETURNS: without distlock Observed[active=true")
                && message.contains("InterceptionFactory, alone, RETURNS"), message);
    }

    private static Class<?>[] beans() {
        List<Class<?>> beans = new ArrayList<>(List.of(TransactionRoutes.BEANS));
        beans.add(Steps.class);
        beans.add(MarkedInterceptor.class);
        return beans.toArray(Class<?>[]::new);
    }
}
