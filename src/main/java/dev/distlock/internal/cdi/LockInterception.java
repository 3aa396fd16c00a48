package dev.distlock.internal.cdi;

import dev.distlock.internal.core.LockExecutor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

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

    @Inject
    LockInterception(DistlockSetup setup, LockEngine engine) {
        this.specs = setup.specs();
        this.engine = engine;
    }

    /** For proxies only. */
    protected LockInterception() {
        this.specs = null;
        this.engine = null;
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
    InterceptedBean intercepting(Class<?> beanClass) {
        return new InterceptedBean(beanClass, specs, engine.executor());
    }
}
