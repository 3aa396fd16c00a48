package dev.distlock.internal.cdi.mutiny;

import dev.distlock.internal.cdi.LazyResult;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.mutiny.subscription.UniEmitter;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One subscription to a locked method's {@code Uni}: takes the locks, runs the method, subscribes
 * to the {@code Uni} it returned, and releases the locks when that {@code Uni} has ended (with an
 * item or a failure); then the subscriber gets the outcome.
 *
 * <p><b>Where it waits.</b> On a thread that may block, the subscribing thread waits for the locks
 * and runs the method, in its invocation chain (nested locked calls reenter, a transaction the
 * method begins is checked before its commit). On a thread that must not block (Mutiny's
 * {@link Infrastructure#canCallerThreadBeBlocked()}: a Vert.x event loop on Quarkus), the wait
 * moves to Mutiny's worker pool, and the method then runs back on the subscriber's Vert.x context,
 * so reactive clients bound to it keep working; the subscriber gets the outcome there too.
 *
 * <p><b>Cancellation.</b> A subscriber that cancels before the locks are had gets nothing, the
 * method never runs, and the locks go back as soon as they come. Once the method ran, cancelling
 * does not stop its {@code Uni}: the locks are held until it ends on its own, then released —
 * never while its work may still run (cancelling a {@code Uni} does not stop work it already
 * handed to other threads). A bound on the work belongs inside the method's {@code Uni}.
 */
final class LockedSubscription {

    /** Asked by name, so that a Vert.x class is loaded only where Vert.x is. */
    private static final boolean VERTX = present("io.vertx.core.Vertx");

    private final String site;
    private final Callable<?> proceed;
    private final LazyResult.UnderLock underLock;
    private final UniEmitter<? super Object> subscriber;
    /** Set just before the subscriber gets its outcome: a termination before that is a cancellation. */
    private final AtomicBoolean signalled = new AtomicBoolean();
    private volatile boolean cancelled;

    LockedSubscription(String site, Callable<?> proceed, LazyResult.UnderLock underLock, UniEmitter<? super Object> subscriber) {
        this.site = site;
        this.proceed = proceed;
        this.underLock = underLock;
        this.subscriber = subscriber;
    }

    void start() {
        subscriber.onTermination(() -> {
            if (!signalled.get()) {
                cancelled = true;
            }
        });
        if (Infrastructure.canCallerThreadBeBlocked()) {
            lockAndRun(null);
        } else {
            Executor context = VERTX ? VertxContexts.current() : null;
            Infrastructure.getDefaultWorkerPool().execute(() -> lockAndRun(context));
        }
    }

    /** @param context where the method runs and the outcome goes; {@code null}: on this thread */
    private void lockAndRun(Executor context) {
        CompletionStage<?> released;
        try {
            released = underLock.run(() -> run(context));
        } catch (Throwable failure) {
            signal(null, failure, context);
            return;
        }
        CompletableFuture<?> done = released.toCompletableFuture();
        if (context == null && done.isDone()) {
            done.whenComplete((item, failure) -> signal(item, failure, null));
        } else {
            // Not on the thread that completes the release (the store client's): its threads must run no application code.
            Executor to = context != null ? context : Infrastructure.getDefaultExecutor();
            done.whenComplete((item, failure) -> signal(item, failure, to));
        }
    }

    /** Under the locks: the method and its {@code Uni}; the stage completes when that {@code Uni} has ended. */
    private CompletionStage<Object> run(Executor context) throws Exception {
        CompletableFuture<Object> ended = new CompletableFuture<>();
        if (cancelled) {
            ended.complete(null); // nobody wants the outcome any more: the method does not run
            return ended;
        }
        if (context == null) {
            subscribe(proceed(), ended); // the method's own exception propagates: released, then passed on
        } else {
            context.execute(() -> {
                if (cancelled) {
                    ended.complete(null); // gone while the method waited for its event loop
                    return;
                }
                try {
                    subscribe(proceed(), ended);
                } catch (Throwable failure) {
                    ended.completeExceptionally(failure);
                }
            });
        }
        return ended;
    }

    private Uni<?> proceed() throws Exception {
        Object uni = proceed.call();
        if (uni == null) {
            throw new NullPointerException(site + " returned null instead of a Uni");
        }
        return (Uni<?>) uni;
    }

    /** Not cancelled when the subscriber cancels: the locks stay until this {@code Uni} has really ended. */
    private void subscribe(Uni<?> uni, CompletableFuture<Object> ended) {
        uni.subscribe().with(subscriber.context(), ended::complete, ended::completeExceptionally);
    }

    private void signal(Object item, Throwable failure, Executor on) {
        if (on == null) {
            emit(item, failure);
            return;
        }
        try {
            on.execute(() -> emit(item, failure));
        } catch (RejectedExecutionException stopping) {
            emit(item, failure);
        }
    }

    private void emit(Object item, Throwable failure) {
        signalled.set(true);
        if (failure == null) {
            subscriber.complete(item);
        } else {
            subscriber.fail(failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, LockedSubscription.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
