package dev.distlock.internal.cdi.mutiny;

import dev.distlock.internal.cdi.LazyResult;
import io.smallrye.mutiny.Uni;

import java.util.concurrent.Callable;

/**
 * Holds a locked method's {@code Uni} until each subscription ends. Calling the method locks
 * nothing and runs nothing: a {@code Uni} nobody subscribes to holds no lock. Each subscription
 * is one locked call ({@link LockedSubscription}), as lazy as the {@code Uni} itself: the method
 * runs again, under the lock, for each one.
 */
public final class LockedUnis implements LazyResult {

    @Override
    public Class<?> type() {
        return Uni.class;
    }

    @Override
    public Object defer(String site, Callable<?> proceed, UnderLock underLock) {
        return Uni.createFrom().emitter(emitter -> new LockedSubscription(site, proceed, underLock, emitter).start());
    }
}
