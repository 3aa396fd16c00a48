package dev.distlock.internal.cdi.mutiny;

import io.vertx.core.Context;
import io.vertx.core.Vertx;

import java.util.concurrent.Executor;

/**
 * The Vert.x context a subscription came from, to run the method there once its lock was had on a
 * worker. Used only where Vert.x is ({@link LockedSubscription} asks without loading it).
 */
final class VertxContexts {

    private VertxContexts() {
    }

    /** Runs tasks on the current thread's Vert.x context (its event loop); {@code null} off any context. */
    static Executor current() {
        Context context = Vertx.currentContext();
        if (context == null) {
            return null;
        }
        return task -> context.runOnContext(ignored -> task.run());
    }
}
