package dev.distlock;

import java.util.ServiceLoader;

/**
 * The one implementation of an interface that the API needs from distlock's engine
 * ({@link EngineFactory}, {@link dev.distlock.id.IdFactory}), found once through
 * {@link ServiceLoader} on distlock's own class loader: the API calls the engine without importing
 * it, so that dependencies point one way, from the engine to the API.
 */
public final class Implementations {

    private static final ClassValue<Object> FOUND = new ClassValue<>() {
        @Override
        protected Object computeValue(Class<?> type) {
            return ServiceLoader.load(type, Implementations.class.getClassLoader()).findFirst()
                    .orElseThrow(() -> new IllegalStateException("distlock's jar lacks META-INF/services/" + type.getName()
                            + ": it is incomplete, or repackaged without its service files"));
        }
    };

    private Implementations() {
    }

    /** The implementation of {@code type} in distlock. */
    public static <T> T of(Class<T> type) {
        return type.cast(FOUND.get(type));
    }
}
