package dev.distlock.internal.cdi;

import dev.distlock.Batch;
import dev.distlock.Combination;
import dev.distlock.Combined;
import dev.distlock.LockDefinitionException;
import dev.distlock.LockMode;
import dev.distlock.internal.core.ReturnKind;
import dev.distlock.spi.LockPolicy;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * How the calls of a {@link Combined} method are served together, resolved at deployment: the
 * bean's batch method and the most calls one batch serves. Everything {@link Combined} asks of
 * the method and its batch method is checked here, and a problem names the method.
 *
 * @param batchMethod the bean's {@code void name(Batch<R>)}, called through the bean's contextual reference
 * @param max         the most calls one batch serves
 */
record CombinedSpec(Method batchMethod, int max) {

    /**
     * The combined spec of {@code method}, or {@code null} when it carries no {@link Combined}.
     *
     * @param lookup a member's configured value, most specific key first ({@code <fqcn>/<method>/Combined/<member>}, …)
     * @throws LockDefinitionException naming the method and what is wrong
     */
    static CombinedSpec of(Class<?> beanClass, Method method, LockPolicy policy, ReturnKind kind,
                           Function<String, Optional<String>> lookup) {
        Combined combined = method.getAnnotation(Combined.class);
        if (combined == null) {
            return null;
        }
        String where = "@Combined on " + policy.site() + ": ";
        if (policy.mode() == LockMode.READ) {
            throw new LockDefinitionException(where + "combines calls of an exclusive or a write lock (@Locked, @WriteLocked);"
                    + " readers of @ReadLocked share the lock anyway");
        }
        Class<?> returned = method.getReturnType();
        if (kind != ReturnKind.VALUE && kind != ReturnKind.OPTIONAL) {
            throw new LockDefinitionException(where + "returns " + returned.getSimpleName() + "; a combined method returns a plain"
                    + " value (or void), which its batch answers each caller with"
                    + (returned.isPrimitive() ? ": return " + boxed(returned).getSimpleName() + " instead" : ""));
        }
        int max = lookup.apply("max").map(value -> integer(value, where)).orElse(combined.max());
        if (max < Combination.MIN_BATCH || max > Combination.MAX_BATCH) {
            throw new LockDefinitionException("@Combined.max on " + policy.site() + ": must be " + Combination.MIN_BATCH + " to "
                    + Combination.MAX_BATCH + ", was " + max);
        }
        return new CombinedSpec(batchMethod(beanClass, combined.value(), where, returned), max);
    }

    private static Method batchMethod(Class<?> beanClass, String name, String where, Class<?> returned) {
        String wanted = "void " + name + "(Batch<" + boxed(returned).getSimpleName() + ">)";
        List<Method> named = new ArrayList<>();
        for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method candidate : c.getDeclaredMethods()) {
                if (candidate.getName().equals(name) && !candidate.isBridge() && !candidate.isSynthetic()) {
                    named.add(candidate);
                }
            }
        }
        Method batch = named.stream().filter(m -> m.getParameterCount() == 1 && m.getParameterTypes()[0] == Batch.class)
                .findFirst().orElseThrow(() -> new LockDefinitionException(where + beanClass.getSimpleName() + " has no method "
                        + wanted + (named.isEmpty() ? "" : "; its " + name + " takes " + parameters(named.get(0)))
                        + ": the batch method takes the calls as one Batch"));
        int modifiers = batch.getModifiers();
        if (batch.getReturnType() != void.class) {
            throw new LockDefinitionException(where + "its batch method " + batch.getName() + " returns "
                    + batch.getReturnType().getSimpleName() + "; it answers each call through the Batch and returns void");
        }
        if (!Modifier.isPublic(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw new LockDefinitionException(where + "its batch method " + batch.getName() + " must be public, not static and not"
                    + " final: it is called through the bean's proxy, so that its @Transactional applies");
        }
        for (Annotation annotation : batch.getAnnotations()) {
            if (LockAnnotation.TYPES.contains(annotation.annotationType()) || annotation.annotationType() == Combined.class) {
                throw new LockDefinitionException(where + "its batch method " + batch.getName() + " carries @"
                        + annotation.annotationType().getSimpleName() + "; it runs holding the combined method's lock, so it takes"
                        + " none of its own");
            }
        }
        batch.setAccessible(true);
        return batch;
    }

    private static String parameters(Method method) {
        return method.getParameterCount() == 0 ? "no parameter" : java.util.Arrays.toString(method.getParameterTypes());
    }

    private static int integer(String value, String where) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new LockDefinitionException(where + "the configured max '" + value + "' is not a whole number");
        }
    }

    private static Class<?> boxed(Class<?> type) {
        if (!type.isPrimitive()) {
            return type;
        }
        return switch (type.getName()) {
            case "void" -> Void.class;
            case "int" -> Integer.class;
            case "long" -> Long.class;
            case "boolean" -> Boolean.class;
            case "double" -> Double.class;
            case "float" -> Float.class;
            case "short" -> Short.class;
            case "byte" -> Byte.class;
            default -> Character.class;
        };
    }
}
