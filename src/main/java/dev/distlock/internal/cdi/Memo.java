package dev.distlock.internal.cdi;

import java.util.function.Supplier;

/**
 * A value resolved once, on first use, by {@code source}: what the server offers (its transaction
 * registry, its OpenTelemetry, its metric registry) may only be reachable once the application runs.
 * {@code null} is a value like any other and is not asked for again.
 */
public final class Memo<T> implements Supplier<T> {
    private final Supplier<T> source;
    private volatile boolean resolved;
    private T value;

    public Memo(Supplier<T> source) {
        this.source = source;
    }

    @Override
    public T get() {
        if (!resolved) {
            synchronized (this) {
                if (!resolved) {
                    value = source.get();
                    resolved = true;
                }
            }
        }
        return value;
    }
}
