package dev.distlock.internal.core;

import dev.distlock.LockDefinitionException;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The properties read below a key parameter, as in {@code {order.customer.id}}: record components,
 * {@code getX()}/{@code isX()} getters or no-argument methods named {@code x()}, found once, when the
 * template is bound.
 */
final class PropertyPath {

    static final PropertyPath EMPTY = new PropertyPath(List.of());

    private final List<Method> accessors;

    private PropertyPath(List<Method> accessors) {
        this.accessors = accessors;
    }

    /** Resolves {@code path[from..]} starting at {@code type}. */
    static PropertyPath resolve(Class<?> type, String[] path, int from) {
        List<Method> accessors = new ArrayList<>();
        Class<?> current = type;
        for (int i = from; i < path.length; i++) {
            String name = path[i];
            if (name.isEmpty()) {
                throw new IllegalArgumentException("empty property name");
            }
            Method accessor = accessor(current, name);
            if (accessor == null) {
                throw new IllegalArgumentException(current.getSimpleName() + " has no property '" + name
                        + "' (a record component, a getter get" + capitalize(name) + "() or a method " + name + "())");
            }
            accessors.add(accessor);
            current = accessor.getReturnType();
        }
        return accessors.isEmpty() ? EMPTY : new PropertyPath(List.copyOf(accessors));
    }

    Class<?> resultType(Class<?> parameterType) {
        return accessors.isEmpty() ? parameterType : accessors.get(accessors.size() - 1).getReturnType();
    }

    Object read(Object root, String label, String site) {
        Object value = root;
        for (Method accessor : accessors) {
            if (value == null) {
                throw new IllegalArgumentException("Lock key parameter '" + label + "' of " + site
                        + " is null along the way (before " + accessor.getName() + "()); a lock key needs a value");
            }
            try {
                value = accessor.invoke(value);
            } catch (InvocationTargetException e) {
                throw new IllegalArgumentException("Reading '" + label + "' for the lock key of " + site + " failed", e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalArgumentException("Reading '" + label + "' for the lock key of " + site
                        + " is not allowed: " + e.getMessage(), e);
            }
        }
        return value;
    }

    /**
     * Rejects types whose {@code toString()} is {@code Object}'s: every call would get its own
     * key ({@code Order@1b6d3586}) and nothing would be excluded, silently.
     */
    static void checkRenderable(Class<?> type, String what, String site) {
        String problem = unrenderable(type);
        if (problem != null) {
            throw new LockDefinitionException(what + " on " + site + ": " + problem);
        }
    }

    /** @return why values of {@code type} cannot be a lock key part, or {@code null} if they can */
    static String unrenderable(Class<?> type) {
        if (type.isPrimitive() || type.isInterface() || type.isEnum() || type == Object.class
                || CharSequence.class.isAssignableFrom(type) || Number.class.isAssignableFrom(type)
                || type == Boolean.class || type == Character.class || type == UUID.class
                || TemporalAccessor.class.isAssignableFrom(type)) {
            return null;
        }
        if (type.isArray()) {
            return "an array (" + type.getSimpleName() + ") is no lock key value; name one element's property or pass a single value";
        }
        try {
            if (type.getMethod("toString").getDeclaringClass() == Object.class) {
                return type.getSimpleName() + " does not override toString(), so every call would lock a different key; "
                        + "name a property instead, e.g. {param.id}";
            }
        } catch (NoSuchMethodException impossible) {
            throw new AssertionError(impossible);
        }
        return null;
    }

    private static Method accessor(Class<?> type, String name) {
        if (type.isRecord()) {
            for (RecordComponent component : type.getRecordComponents()) {
                if (component.getName().equals(name)) {
                    return accessible(component.getAccessor());
                }
            }
        }
        for (String candidate : List.of("get" + capitalize(name), "is" + capitalize(name), name)) {
            try {
                Method method = type.getMethod(candidate);
                if (method.getReturnType() != void.class && !Modifier.isStatic(method.getModifiers())
                        && (!candidate.startsWith("is") || method.getReturnType() == boolean.class || candidate.equals(name))) {
                    return accessible(method);
                }
            } catch (NoSuchMethodException notThisOne) {
                // try the next naming convention
            }
        }
        return null;
    }

    private static Method accessible(Method method) {
        try {
            method.setAccessible(true);
        } catch (RuntimeException denied) {
            // public methods of public types are callable anyway; others fail with a clear message on call
        }
        return method;
    }

    private static String capitalize(String name) {
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }
}
