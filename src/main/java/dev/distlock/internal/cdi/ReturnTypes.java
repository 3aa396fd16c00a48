package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.OnTimeout;
import dev.distlock.internal.core.ReturnKind;
import dev.distlock.spi.LockPolicy;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * When a locked method's work ends, read from its return type at deployment. Every type is either
 * held until its work ends — a plain value when the method returns, a {@code CompletionStage} when
 * it completes, Mutiny's {@code Uni} when each subscription ends — or refused by name: a type whose
 * work runs or ends after the method returned would have its lock released before that work ran.
 *
 * <p>Lazy and later-completing types are known by their names and their supertypes' names
 * ({@link LaterTypes}), so recognising one loads no optional library; a type of no known family that
 * lets callers subscribe to it or be told when it completes is refused too. Type arguments are
 * checked the same way: {@code Optional<Uni<T>>} would run its {@code Uni} after the release.
 */
final class ReturnTypes {

    /** How a locked method's result is held: the engine's kind, and the adapter of a lazy result, if it is one. */
    record Handling(ReturnKind kind, LazyResult lazy) {
    }

    private static final String UNI = "io.smallrye.mutiny.Uni";

    private ReturnTypes() {
    }

    /**
     * @throws LockDefinitionException naming the annotation, the method, the type and what to
     *                                 return instead, for a type whose work would outlive the lock
     */
    static Handling of(Method method, LockPolicy policy) {
        Class<?> type = method.getReturnType();
        String refused = refusal(method, type);
        if (refused != null) {
            throw new LockDefinitionException(policy.mode().annotation() + " on " + policy.site() + ": " + refused);
        }
        String inside = laterTypeInside(genericReturnType(method), true);
        if (inside != null) {
            throw new LockDefinitionException(policy.mode().annotation() + " on " + policy.site() + ": returns "
                    + genericReturnType(method).getTypeName() + ", and the " + inside + " inside it would run or complete after "
                    + "the lock was released; return the later type outermost (Uni<Optional<T>>, CompletionStage<List<T>>) or plain values");
        }
        if (type.getName().equals(UNI)) {
            return new Handling(ReturnKind.COMPLETION_STAGE, LazyResults.uni(type, policy.mode().annotation() + " on " + policy.site()));
        }
        ReturnKind kind = ReturnKind.of(method);
        if (kind == ReturnKind.PRIMITIVE && policy.onTimeout() == OnTimeout.SKIP) {
            throw new LockDefinitionException(policy.mode().annotation() + ".onTimeout on " + policy.site() + ": SKIP needs a result "
                    + "that can be empty, but the method returns " + type.getName() + "; return a wrapper or Optional, or use FAIL");
        }
        return new Handling(kind, null);
    }

    /** Per class of a result: why it cannot be held ({@link #resultRefusal}), or {@code null} for a plain value. */
    private static final ClassValue<String> RESULTS = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            if (CompletionStage.class.isAssignableFrom(type)) {
                return "a " + named(type) + ", which completes later";
            }
            for (String name : supertypeNames(type)) {
                if (name.equals(UNI) || LaterTypes.family(name) != null) {
                    return "a " + named(type) + (name.equals(type.getName()) ? "" : " (a " + LaterTypes.simpleName(name) + ")")
                            + ", whose work runs or ends later";
                }
            }
            return null;
        }
    };

    /**
     * What a method declared to return {@code Object} returned, when its work runs or ends after
     * the method returned: the deployment could not see it, so the call says it instead of handing
     * it on. {@code null} for a plain value.
     */
    static String resultRefusal(Object result) {
        return result == null ? null : RESULTS.get(result.getClass());
    }

    /** The declared return type with its type arguments; the raw type where an argument's class is not there. */
    private static Type genericReturnType(Method method) {
        try {
            return method.getGenericReturnType();
        } catch (TypeNotPresentException | java.lang.reflect.MalformedParameterizedTypeException | LinkageError absent) {
            return method.getReturnType();
        }
    }

    /** Why the method's result cannot be held, or {@code null} if it can. */
    private static String refusal(Method method, Class<?> type) {
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0 && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
            return "is a Kotlin suspend function, which returns when it first suspends: the lock would be released while its "
                    + "work goes on. Lock a function that does not suspend, or return CompletionStage (future { ... }.asCompletableFuture())";
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            return type.isAssignableFrom(CompletableFuture.class) ? null : "returns " + named(type)
                    + "; a locked method that completes later must return CompletionStage or CompletableFuture";
        }
        if (type.getName().equals(UNI)) {
            return null;
        }
        for (String name : supertypeNames(type)) {
            if (name.equals(UNI)) {
                return "returns " + named(type) + ", a kind of Mutiny Uni; declare the method to return Uni itself, "
                        + "which distlock holds until each subscription ends";
            }
            LaterTypes.Family family = LaterTypes.family(name);
            if (family != null) {
                String what = describe(name, !name.equals(type.getName()));
                return "returns " + named(type) + (what.isEmpty() ? "" : " (" + what + ")") + ", " + family.why() + "; "
                        + family.instead();
            }
        }
        String callback = LaterTypes.completionCallback(type);
        if (callback != null) {
            return "returns " + type.getName() + ", which has " + callback + ": its work seems to end after the method returns, "
                    + "and distlock cannot tell when, so the lock would be released before it ends. Return CompletionStage, Uni or a "
                    + "plain value";
        }
        return null;
    }

    /**
     * The later-completing type among {@code type}'s type arguments, e.g. {@code Uni} in
     * {@code Optional<Uni<T>>}; {@code null} if there is none. The outermost type is judged by
     * {@link #refusal} instead.
     */
    private static String laterTypeInside(Type type, boolean outermost) {
        if (type instanceof ParameterizedType parameterized) {
            if (!outermost) {
                String later = laterName((Class<?>) parameterized.getRawType());
                if (later != null) {
                    return later;
                }
            }
            for (Type argument : parameterized.getActualTypeArguments()) {
                String inside = laterTypeInside(argument, false);
                if (inside != null) {
                    return inside;
                }
            }
        } else if (type instanceof GenericArrayType array) {
            return laterTypeInside(array.getGenericComponentType(), false);
        } else if (type instanceof Class<?> raw && !outermost) {
            return laterName(raw.isArray() ? raw.getComponentType() : raw);
        }
        return null;
    }

    /** The simple name of {@code type} if its work may end after it was handed back: held kinds and refused ones alike. */
    private static String laterName(Class<?> type) {
        if (type.isPrimitive() || type == Optional.class) {
            return null;
        }
        if (CompletionStage.class.isAssignableFrom(type) || java.util.concurrent.Future.class.isAssignableFrom(type)) {
            return named(type);
        }
        for (String name : supertypeNames(type)) {
            if (name.equals(UNI) || LaterTypes.family(name) != null) {
                return named(type);
            }
        }
        return null;
    }

    /** {@code Vert.x}, {@code a Reactor Mono}, {@code a BaseStream}, or nothing to add: what a type is, for messages. */
    private static String describe(String familyType, boolean through) {
        String library = LaterTypes.library(familyType);
        if (!through) {
            return library;
        }
        return "a " + (library.isEmpty() ? "" : library + " ") + LaterTypes.simpleName(familyType);
    }

    /** {@code Flow.Publisher}, {@code Uni}: how messages name a type. */
    private static String named(Class<?> type) {
        return LaterTypes.simpleName(type.getName());
    }

    /**
     * The names of {@code type}, its superclasses and every interface they implement, nearest first.
     * The classes are loaded already (they are {@code type}'s supertypes), so this loads nothing.
     */
    static Set<String> supertypeNames(Class<?> type) {
        Set<String> names = new LinkedHashSet<>();
        ArrayDeque<Class<?>> pending = new ArrayDeque<>();
        pending.add(type);
        while (!pending.isEmpty()) {
            Class<?> next = pending.poll();
            if (names.add(next.getName())) {
                if (next.getSuperclass() != null) {
                    pending.add(next.getSuperclass());
                }
                pending.addAll(java.util.List.of(next.getInterfaces()));
            }
        }
        return names;
    }
}
