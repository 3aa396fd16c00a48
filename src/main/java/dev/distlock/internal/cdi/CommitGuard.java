package dev.distlock.internal.cdi;

import dev.distlock.internal.core.LockExecutor;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * The second half of every lock interceptor, just inside {@code @Transactional}: the lock
 * interceptors run outside it ({@link LockInterception#PRIORITY}), so that the lock outlives the
 * commit; this one runs after the transaction has begun, and has it checked just before it
 * commits. If the lock is gone by then (a pause longer than the lease, Redis lost it), the
 * transaction is rolled back instead of committing work that did not run alone, and the call
 * throws {@link dev.distlock.LockLostException} with {@code rolledBack()} true.
 */
final class CommitGuard {

    /** Just inside {@code @Transactional} ({@code PLATFORM_BEFORE + 200}). */
    static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 201;

    private final LockExecutor executor;

    CommitGuard(LockExecutor executor) {
        this.executor = executor;
    }

    Object proceed(InvocationContext invocation) throws Exception {
        executor.guardTransaction();
        return invocation.proceed();
    }
}
