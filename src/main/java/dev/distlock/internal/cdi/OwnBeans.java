package dev.distlock.internal.cdi;


import java.util.ArrayList;
import java.util.List;

/**
 * distlock's own beans, which both extensions register and never inspect for locks, and the
 * observability beans, registered only where the server has their APIs.
 */
final class OwnBeans {

    /** distlock's own beans; the interceptors carry the lock annotations as bindings. */
    static final List<Class<?>> ALWAYS = List.of(LockEngine.class, LockBeans.class, LockInterception.class,
            IdGenerators.class,
            LockedInterceptor.class, ReadLockedInterceptor.class, WriteLockedInterceptor.class,
            CommitGuard.Required.class, CommitGuard.RequiresNew.class, CommitGuard.Mandatory.class, CommitGuard.Supports.class,
            TransactionFrame.Required.class, TransactionFrame.RequiresNew.class, TransactionFrame.NotSupported.class);

    /** The interceptors that take the locks. */
    static final List<Class<?>> LOCK_INTERCEPTORS = List.of(LockedInterceptor.class, ReadLockedInterceptor.class, WriteLockedInterceptor.class);

    private static final String OBSERVABILITY = "dev.distlock.internal.cdi.observability.";

    private OwnBeans() {
    }

    /** The optional observability beans, by class name: registered only where the server has their APIs. */
    static List<String> observability() {
        List<String> names = new ArrayList<>();
        if (present("org.eclipse.microprofile.health.HealthCheck")) {
            names.add(OBSERVABILITY + "LockStoreReadiness");
            names.add(OBSERVABILITY + "IdStoreReadiness");
            names.add(OBSERVABILITY + "IdLayoutReadiness");
        }
        if (present("org.eclipse.microprofile.metrics.MetricRegistry")) {
            names.add(OBSERVABILITY + "LockMetrics");
        }
        if (present("io.opentelemetry.api.OpenTelemetry")) {
            names.add(OBSERVABILITY + "LockTelemetry");
            names.add(OBSERVABILITY + "LockTracer");
        }
        return names;
    }

    static boolean own(Class<?> beanClass) {
        return ALWAYS.contains(beanClass) || beanClass.getName().startsWith(OBSERVABILITY);
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, OwnBeans.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
