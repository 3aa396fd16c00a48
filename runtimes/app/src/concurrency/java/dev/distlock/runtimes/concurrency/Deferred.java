package dev.distlock.runtimes.concurrency;

import dev.distlock.Locked;
import dev.distlock.runtimes.shapes.Regions;
import jakarta.enterprise.concurrent.Asynchronous;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.concurrent.CompletableFuture;

/**
 * Jakarta Concurrency's {@code @Asynchronous} on a locked method: its interceptor runs outside the
 * lock ({@code PLATFORM_BEFORE + 5}), so the lock is taken on the managed executor's thread and
 * held until the method's future completes. The region lasts as long as the method body.
 */
@ApplicationScoped
public class Deferred {

    @Inject
    Regions regions;

    @Asynchronous
    @Locked("deferred:{key}")
    public CompletableFuture<String> book(String key) {
        guarded("deferred", key);
        return Asynchronous.Result.complete(Thread.currentThread().getName());
    }

    /** The twin, without the lock. */
    @Asynchronous
    public CompletableFuture<String> bookUnlocked(String key) {
        guarded("deferred-unlocked", key);
        return Asynchronous.Result.complete(Thread.currentThread().getName());
    }

    private void guarded(String shape, String key) {
        regions.enter(shape, key);
        regions.think();
        regions.leave(shape, key);
    }
}
