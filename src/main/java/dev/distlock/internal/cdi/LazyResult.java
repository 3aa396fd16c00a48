package dev.distlock.internal.cdi;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;

/**
 * A locked method's result whose work runs when it is subscribed (Mutiny's {@code Uni}): nothing
 * is locked when the method is called; each subscription takes the locks, runs the method and the
 * work of what it returned, and releases them when that subscription's work has ended. Implemented
 * beside the library it adapts and loaded only for a method that returns its type
 * ({@link LazyResults}), so the engine and the rest of the CDI layer never need that library.
 */
public interface LazyResult {

    /** The type this adapts, as distlock's class loader sees it. */
    Class<?> type();

    /**
     * @param site      the method, for messages ({@code Shop.order(String,int)})
     * @param proceed   the intercepted invocation: runs the method (and the interceptors after
     *                  distlock's) and gives its result; called once per subscription
     * @param underLock runs work under the method's locks as one locked call that ends when the
     *                  stage the work gives completes
     * @return what the caller gets in place of the method's result, of the method's return type
     */
    Object defer(String site, Callable<?> proceed, UnderLock underLock);

    /** One locked call, as the engine makes it ({@code LockExecutor.execute} with a stage's kind). */
    @FunctionalInterface
    interface UnderLock {
        /**
         * @return a stage completed, once the locks were released, with the work's outcome; or, when
         *         the locks could not be had, failed ({@code LockTimeoutException}) or completed with
         *         {@code null} ({@code onTimeout = SKIP}) without running the work
         * @throws Exception what the work threw, after the locks were released
         */
        CompletionStage<?> run(Callable<? extends CompletionStage<?>> work) throws Exception;
    }
}
