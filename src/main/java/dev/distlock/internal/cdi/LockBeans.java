package dev.distlock.internal.cdi;

import dev.distlock.DistributedLocks;
import dev.distlock.LockContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;

/** What an application can inject besides the annotations: the programmatic API and the running call's context. */
@ApplicationScoped
public class LockBeans {

    private final LockEngine engine;

    @Inject
    LockBeans(LockEngine engine) {
        this.engine = engine;
    }

    /** For proxies only. */
    protected LockBeans() {
        this.engine = null;
    }

    /**
     * {@code @Inject DistributedLocks}: the engine the annotations use, for locks taken in code and
     * for {@link DistributedLocks#raiseFencingFloor}. distlock closes it when the application
     * stops; the application does not.
     */
    @Produces
    @Dependent
    DistributedLocks distributedLocks() {
        return engine.locks();
    }

    /** {@code @Inject LockContext}: what the running locked call holds, e.g. its fencing token. */
    @Produces
    @Dependent
    LockContext lockContext() {
        return engine.locks().context();
    }
}
