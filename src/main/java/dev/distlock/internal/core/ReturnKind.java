package dev.distlock.internal.core;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** How a locked method hands back its result, which decides when the lock is released. */
public enum ReturnKind {
    /** Released when the method returns. Skipping returns {@code null}. */
    VALUE,
    /** Like {@link #VALUE}; skipping returns {@code Optional.empty()}. */
    OPTIONAL,
    /** Released when the returned stage completes, from the completing thread. */
    COMPLETION_STAGE,
    /** A primitive result: the method cannot be skipped. */
    PRIMITIVE;

    /** What a skipped call returns. */
    public Object skipValue() {
        return switch (this) {
            case VALUE -> null;
            case OPTIONAL -> Optional.empty();
            case COMPLETION_STAGE -> CompletableFuture.completedFuture(null);
            case PRIMITIVE -> throw new IllegalStateException("a primitive result cannot be skipped");
        };
    }

    public static ReturnKind of(Method method) {
        Class<?> type = method.getReturnType();
        if (type.isPrimitive() && type != void.class) {
            return PRIMITIVE;
        }
        if (type == Optional.class) {
            return OPTIONAL;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            return COMPLETION_STAGE;
        }
        return VALUE;
    }
}
