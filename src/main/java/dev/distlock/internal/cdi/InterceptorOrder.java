package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import jakarta.annotation.Priority;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.Config;

import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where the lock interceptors sit in the chain ({@code distlock.interceptor.priority}, by default
 * {@code PLATFORM_BEFORE + 100}), and what that means for MicroProfile Fault Tolerance on the same
 * method. The lock must stay outside {@code @Transactional} ({@code PLATFORM_BEFORE + 200}) and the
 * transaction frame just inside it ({@code + 199}): a priority that would put it inside is refused.
 *
 * <p>Fault Tolerance runs at {@code mp.fault.tolerance.interceptor.priority}, by default
 * {@code PLATFORM_AFTER + 10}: inside the lock and the transaction. There it retries, times,
 * limits and falls back from the body with the lock held, and never sees what the lock throws
 * ({@code LockTimeoutException}, {@code LockServiceUnavailableException}). A method whose Fault
 * Tolerance annotation names one of distlock's exceptions would then never act on it, and is
 * refused; any other Fault Tolerance annotation on a locked method gets a warning that says how
 * to put Fault Tolerance outside. Fault Tolerance is read by name: it need not be there.
 */
final class InterceptorOrder {

    static final String PRIORITY = "distlock.interceptor.priority";
    static final String FAULT_TOLERANCE_PRIORITY = "mp.fault.tolerance.interceptor.priority";
    static final int DEFAULT = LockInterception.PRIORITY;
    /** MicroProfile Fault Tolerance's own default. */
    static final int FAULT_TOLERANCE_DEFAULT = Interceptor.Priority.PLATFORM_AFTER + 10;

    private static final System.Logger LOG = System.getLogger(InterceptorOrder.class.getName());
    private static final String FAULT_TOLERANCE = "org.eclipse.microprofile.faulttolerance.";
    /** The members of Fault Tolerance's annotations that name exceptions it acts on. */
    private static final List<String> ACTS_ON = List.of("retryOn", "failOn", "applyOn");
    /** What the lock throws before the call goes in: an interceptor inside it never sees these. */
    private static final List<Class<?>> THROWN_OUTSIDE = List.of(LockTimeoutException.class, LockServiceUnavailableException.class);

    private final int lock;
    private final int faultTolerance;
    private final Set<String> warned = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private InterceptorOrder(int lock, int faultTolerance) {
        this.lock = lock;
        this.faultTolerance = faultTolerance;
    }

    /** The order the configuration gives; a wrong {@value #PRIORITY} is thrown, naming key and value. */
    static InterceptorOrder read(Config config) {
        return new InterceptorOrder(lockPriority(config), faultTolerancePriority(config));
    }

    /** The order as the container was built with it. */
    static InterceptorOrder of(int lock, int faultTolerance) {
        return new InterceptorOrder(lock, faultTolerance);
    }

    /** The default lock priority, with Fault Tolerance's as configured: what stands when {@value #PRIORITY} is wrong. */
    static InterceptorOrder defaults(Config config) {
        return new InterceptorOrder(DEFAULT, faultTolerancePriority(config));
    }

    /** The lock interceptors' priority: {@value #PRIORITY}, else {@link #DEFAULT}. */
    static int lockPriority(Config config) {
        Optional<String> value = config.getOptionalValue(PRIORITY, String.class);
        if (value.isEmpty()) {
            return DEFAULT;
        }
        int priority;
        try {
            priority = Integer.parseInt(value.get().strip());
        } catch (NumberFormatException e) {
            throw new LockDefinitionException("Config " + PRIORITY + "=" + value.get() + ": must be a whole number below "
                    + TransactionFrame.PRIORITY + " (the default is " + DEFAULT + ")");
        }
        if (priority >= TransactionFrame.PRIORITY) {
            throw new LockDefinitionException("Config " + PRIORITY + "=" + value.get() + ": would put the lock inside"
                    + " @Transactional (" + (Interceptor.Priority.PLATFORM_BEFORE + 200) + "), where the transaction commits after"
                    + " the lock is released and another holder can read what is not yet committed; it must be below "
                    + TransactionFrame.PRIORITY + " (the default is " + DEFAULT + "). To have Fault Tolerance outside the lock,"
                    + " lower " + FAULT_TOLERANCE_PRIORITY + " below it instead");
        }
        return priority;
    }

    private static int faultTolerancePriority(Config config) {
        try {
            return config.getOptionalValue(FAULT_TOLERANCE_PRIORITY, Integer.class).orElse(FAULT_TOLERANCE_DEFAULT);
        } catch (IllegalArgumentException notANumber) {
            // Fault Tolerance itself refuses it.
            return FAULT_TOLERANCE_DEFAULT;
        }
    }

    int lock() {
        return lock;
    }

    int faultTolerance() {
        return faultTolerance;
    }

    /** Whether Fault Tolerance's interceptor runs inside the lock's (a higher priority is further in). */
    boolean faultToleranceInside() {
        return faultTolerance > lock;
    }

    /**
     * Checks the Fault Tolerance annotations that govern a locked method (on it or on its bean's
     * class) against the order: a problem if one names an exception of distlock's that it would
     * never see, or if both sit at one priority (the order is then the container's whim); a
     * warning, once per method, for any other where Fault Tolerance runs inside the lock.
     */
    void check(Class<?> beanClass, Method method, String site) {
        List<Annotation> annotations = faultTolerance(beanClass, method);
        if (annotations.isEmpty()) {
            return;
        }
        String names = annotations.stream().map(a -> "@" + a.annotationType().getSimpleName())
                .reduce((a, b) -> a + " " + b).orElseThrow();
        if (faultTolerance == lock) {
            throw new LockDefinitionException(site + " carries " + names + " and its lock, and " + FAULT_TOLERANCE_PRIORITY
                    + " and " + PRIORITY + " are both " + lock + ", which leaves their order to the container; give them"
                    + " different priorities (lower runs outside)");
        }
        if (!faultToleranceInside()) {
            return;
        }
        for (Annotation annotation : annotations) {
            for (String member : ACTS_ON) {
                for (Class<?> named : classes(annotation, member)) {
                    if (THROWN_OUTSIDE.stream().anyMatch(thrown -> thrown.isAssignableFrom(named))) {
                        throw new LockDefinitionException("@" + annotation.annotationType().getSimpleName() + "(" + member + " = "
                                + named.getSimpleName() + ".class) on " + site + ": Fault Tolerance runs inside the lock ("
                                + FAULT_TOLERANCE_PRIORITY + " is " + faultTolerance + ", the lock's " + PRIORITY + " " + lock
                                + "), so it never sees " + named.getSimpleName() + ", which the lock throws outside it; set "
                                + FAULT_TOLERANCE_PRIORITY + " below " + lock + " (for one, " + Math.max(lock - 50, 0)
                                + ") to put Fault Tolerance outside the lock and the transaction");
                    }
                }
            }
        }
        if (warned.add(site)) {
            LOG.log(System.Logger.Level.WARNING, "distlock: " + site + " carries " + names + " inside its lock ("
                    + FAULT_TOLERANCE_PRIORITY + " is " + faultTolerance + ", the lock's " + PRIORITY + " " + lock + "): Fault"
                    + " Tolerance acts on the body with the lock (and any transaction) held, and never on a lock timeout or an"
                    + " unreachable store. Set " + FAULT_TOLERANCE_PRIORITY + " below " + lock + " to put it outside;"
                    + " docs/annotations-and-configuration.md has the table.");
        }
    }

    /** The Fault Tolerance annotations on {@code method}, and those on the bean's classes that it does not repeat. */
    private static List<Annotation> faultTolerance(Class<?> beanClass, Method method) {
        Set<Class<? extends Annotation>> seen = new LinkedHashSet<>();
        List<Annotation> found = new ArrayList<>();
        List<Annotation[]> levels = new ArrayList<>();
        levels.add(method.getDeclaredAnnotations());
        for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
            levels.add(c.getDeclaredAnnotations());
        }
        for (Annotation[] level : levels) {
            for (Annotation annotation : level) {
                if (annotation.annotationType().getName().startsWith(FAULT_TOLERANCE) && seen.add(annotation.annotationType())) {
                    found.add(annotation);
                }
            }
        }
        return found;
    }

    private static List<Class<?>> classes(Annotation annotation, String member) {
        try {
            Method read = annotation.annotationType().getMethod(member);
            return read.invoke(annotation) instanceof Class<?>[] named ? List.of(named) : List.of();
        } catch (NoSuchMethodException absent) {
            return List.of();
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new LockDefinitionException("distlock cannot read @" + annotation.annotationType().getSimpleName() + "." + member
                    + ": " + e);
        }
    }

    /** The priority the lock interceptors are given, where the container lets an extension change it. */
    static final class PriorityLiteral extends AnnotationLiteral<Priority> implements Priority {
        private static final long serialVersionUID = 1L;
        private final int value;

        PriorityLiteral(int value) {
            this.value = value;
        }

        @Override
        public int value() {
            return value;
        }
    }
}
