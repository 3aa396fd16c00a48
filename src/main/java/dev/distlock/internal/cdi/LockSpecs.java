package dev.distlock.internal.cdi;

import dev.distlock.Combined;
import dev.distlock.LockDefinitionException;
import org.eclipse.microprofile.config.Config;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The {@link LockSpec} of every locked method, per bean class, resolved as the extension sees the
 * beans: what the per-call path looks up. A lock that could never be taken (on a private or static
 * method, on an interface) is a problem, not a silent unlocked call.
 */
final class LockSpecs {

    /** Per bean class: a method inherited by two beans is locked as each bean's class says. */
    private final Map<BeanMethod, LockSpec> specs = new ConcurrentHashMap<>();
    private final Set<Class<?>> checkedInterfaces = ConcurrentHashMap.newKeySet();
    private final Supplier<Config> config;
    private final Supplier<InterceptorOrder> order;
    private final Problems problems;

    LockSpecs(Supplier<Config> config, Supplier<InterceptorOrder> order, Problems problems) {
        this.config = config;
        this.order = order;
        this.problems = problems;
    }

    /**
     * Resolves the locks of a bean class's methods; a problem for each that is wrong.
     *
     * @return one instance of each lock annotation that governs a method of the class, as the
     *         container sees its interceptor bindings; empty if no method is locked
     */
    Collection<Annotation> inspect(Class<?> beanClass) {
        if (OwnBeans.own(beanClass)) {
            return List.of();
        }
        interfacesOf(beanClass).forEach(this::checkInterface);
        LockSpecFactory factory = new LockSpecFactory(config.get());
        Map<Class<? extends Annotation>, Annotation> bindings = new java.util.LinkedHashMap<>();
        for (Method method : businessMethods(beanClass)) {
            try {
                Optional<Annotation> annotation = LockSpecFactory.governing(beanClass, method);
                if (annotation.isEmpty()) {
                    if (method.isAnnotationPresent(Combined.class)) {
                        problems.add(new LockDefinitionException("@Combined on " + LockSpecFactory.site(method) + ": combines the calls"
                                + " of a locked method, and no @Locked or @WriteLocked governs this one (on it or on its class)"));
                    }
                    continue;
                }
                int modifiers = method.getModifiers();
                if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers)) {
                    if (lockedOnMethod(method)) {
                        problems.add(new LockDefinitionException("@" + annotation.get().annotationType().getSimpleName()
                                + " on " + LockSpecFactory.site(method) + ": " + (Modifier.isStatic(modifiers) ? "static" : "private")
                                + " methods are not intercepted, so the lock would never be taken; make the method non-private and non-static"));
                    }
                    continue;
                }
                specs.put(new BeanMethod(beanClass, method), factory.build(beanClass, method, annotation.get()));
                order.get().check(beanClass, method, LockSpecFactory.site(method));
                bindings.putIfAbsent(annotation.get().annotationType(), annotation.get());
            } catch (LockDefinitionException e) {
                problems.add(e);
            }
        }
        return List.copyOf(bindings.values());
    }

    /** The methods of a bean class whose calls are combined: the bean must then be normal-scoped. */
    List<String> combinedMethods(Class<?> beanClass) {
        List<String> combined = new ArrayList<>();
        specs.forEach((key, spec) -> {
            if (key.beanClass() == beanClass && spec.combined() != null) {
                combined.add(LockSpecFactory.site(key.method()));
            }
        });
        return combined;
    }

    /** Whether a class has a lock annotation on it or on one of its methods or its superclasses'. */
    static boolean carriesLocks(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            if (lockedOn(c.getDeclaredAnnotations())) {
                return true;
            }
            for (Method method : c.getDeclaredMethods()) {
                if (lockedOnMethod(method)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Reports an interface that carries lock annotations, once: implementations do not inherit them. */
    void checkInterface(Class<?> type) {
        if (type.isInterface() && checkedInterfaces.add(type)) {
            lockedInterface(type).ifPresent(problems::add);
        }
    }

    private static Optional<LockDefinitionException> lockedInterface(Class<?> type) {
        for (Method method : type.getDeclaredMethods()) {
            if (lockedOnMethod(method)) {
                return Optional.of(new LockDefinitionException(describeLocks(method.getAnnotations()) + " on " + LockSpecFactory.site(method)
                        + ": an interface's method annotations are not inherited by the classes that implement it, so no call would be"
                        + " locked; put the annotation on the implementing bean's method"));
            }
        }
        if (lockedOn(type.getDeclaredAnnotations())) {
            return Optional.of(new LockDefinitionException(describeLocks(type.getDeclaredAnnotations()) + " on interface " + type.getName()
                    + ": annotations on an interface are not inherited by the classes that implement it, so no call would be locked;"
                    + " put the annotation on the implementing bean class"));
        }
        return Optional.empty();
    }

    /** The spec of a locked method of a bean class; resolved now if it was not seen at deployment. */
    LockSpec spec(Class<?> beanClass, Method method) {
        BeanMethod key = new BeanMethod(beanClass, method);
        LockSpec spec = specs.get(key);
        if (spec != null) {
            return spec;
        }
        return specs.computeIfAbsent(key, absent -> {
            Annotation annotation = LockSpecFactory.governing(beanClass, method).orElseThrow(() ->
                    new LockDefinitionException("No lock annotation found for " + LockSpecFactory.site(method)));
            return new LockSpecFactory(config.get()).build(beanClass, method, annotation);
        });
    }

    /** The spec of a locked method of the bean class that declares it. */
    LockSpec spec(Method method) {
        return spec(method.getDeclaringClass(), method);
    }

    private static boolean lockedOnMethod(Method method) {
        return lockedOn(method.getDeclaredAnnotations());
    }

    private static boolean lockedOn(Annotation[] annotations) {
        for (Annotation annotation : annotations) {
            if (LockAnnotation.TYPES.contains(annotation.annotationType())) {
                return true;
            }
        }
        return false;
    }

    private static String describeLocks(Annotation[] annotations) {
        return Arrays.stream(annotations).filter(a -> LockAnnotation.TYPES.contains(a.annotationType()))
                .map(a -> "@" + a.annotationType().getSimpleName()).reduce((a, b) -> a + " " + b).orElse("");
    }

    private static Set<Class<?>> interfacesOf(Class<?> type) {
        Set<Class<?>> all = new java.util.LinkedHashSet<>();
        java.util.ArrayDeque<Class<?>> pending = new java.util.ArrayDeque<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            pending.addAll(Arrays.asList(c.getInterfaces()));
        }
        while (!pending.isEmpty()) {
            Class<?> next = pending.poll();
            if (all.add(next)) {
                pending.addAll(Arrays.asList(next.getInterfaces()));
            }
        }
        return all;
    }

    /** Every method a call could be intercepted on, most derived first, each signature once. */
    private static List<Method> businessMethods(Class<?> beanClass) {
        List<Method> methods = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method method : c.getDeclaredMethods()) {
                if (method.isBridge() || method.isSynthetic()) {
                    continue;
                }
                String signature = method.getName() + Arrays.toString(method.getParameterTypes());
                if (seen.add(signature)) {
                    methods.add(method);
                }
            }
        }
        return methods;
    }

    private record BeanMethod(Class<?> beanClass, Method method) {
    }
}
