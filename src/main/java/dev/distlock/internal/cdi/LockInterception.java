package dev.distlock.internal.cdi;

import dev.distlock.Batch;
import dev.distlock.internal.core.CombinedCalls;
import dev.distlock.internal.core.LockExecutor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanContainer;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the three interceptors share: the spec of the intercepted method, resolved at deployment,
 * and the engine. Each interceptor instance takes an {@link InterceptedBean} from it once; the
 * per-call path is a reference comparison, rendering the keys, and the engine.
 */
@ApplicationScoped
public class LockInterception {

    /**
     * Outside {@code @Transactional} ({@code PLATFORM_BEFORE + 200}): the lock is taken before the
     * transaction begins and released after it has committed or rolled back.
     */
    public static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 100;

    private final LockSpecs specs;
    private final LockEngine engine;
    private final BeanContainer container;
    /** What serves the batches of each combined method of each bean: one each, which tells their calls' groups apart. */
    private final Map<Object, CombinedCalls.CombinedMethod> combinedMethods = new ConcurrentHashMap<>();

    @Inject
    LockInterception(DistlockSetup setup, LockEngine engine, BeanContainer container) {
        this.specs = setup.specs();
        this.engine = engine;
        this.container = container;
    }

    /** For proxies only. */
    protected LockInterception() {
        this.specs = null;
        this.engine = null;
        this.container = null;
    }

    /**
     * Makes the setup as the application starts: in CDI Lite the run-time configuration is checked
     * then, so a bad setting fails the start, not the first locked call. (In full CDI it was checked
     * at deployment; this only looks it up.)
     */
    static void checkAtStart(@Observes @Initialized(ApplicationScoped.class) Object started, DistlockSetup setup) {
        setup.settings().keyPrefix();
    }

    /** The engine, for the commit guard: taken once per interceptor instance. */
    LockExecutor executor() {
        return engine.executor();
    }

    /**
     * What an interceptor instance calls on every invocation: a plain object holding the engine,
     * taken once, so that a call does not go through this bean's client proxy each time.
     */
    InterceptedBean intercepting(Bean<?> bean) {
        return new InterceptedBean(bean.getBeanClass(), specs, engine.executor(),
                (method, spec) -> combinedMethods.computeIfAbsent(List.of(bean, method), key -> new BatchMethod(bean, spec)));
    }

    /** A bean's batch method, called through the bean's contextual reference so that its interceptors apply. */
    private final class BatchMethod implements CombinedCalls.CombinedMethod {
        private final Bean<?> bean;
        private final CombinedSpec spec;
        private volatile Object reference;

        BatchMethod(Bean<?> bean, CombinedSpec spec) {
            this.bean = bean;
            this.spec = spec;
        }

        @Override
        public int max() {
            return spec.max();
        }

        @Override
        public void serve(Batch<Object> batch) throws Exception {
            Object target = reference;
            if (target == null) {
                target = container.getReference(bean, bean.getBeanClass(), container.createCreationalContext(bean));
                reference = target; // a normal-scoped bean's client proxy: the same for the application's life
            }
            try {
                spec.batchMethod().invoke(target, batch);
            } catch (InvocationTargetException thrown) {
                if (thrown.getCause() instanceof Exception exception) {
                    throw exception;
                }
                if (thrown.getCause() instanceof Error error) {
                    throw error;
                }
                throw thrown;
            }
        }
    }
}
