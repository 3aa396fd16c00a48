package dev.distlock.internal.cdi;

import dev.distlock.internal.core.LockExecutor;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Runs just inside every {@code @Transactional} method of the application (distlock's extensions
 * bind it there with {@link GuardedCommit}). The lock interceptors run outside
 * {@code @Transactional} ({@link LockInterception#PRIORITY}), so that the lock outlives the
 * commit; this one sees a transaction that began inside a locked call — the locked method's own,
 * or one a bean it calls began — and has it checked just before it commits. If the lock is gone by
 * then (a pause longer than the lease, the store lost it), the transaction is rolled back instead
 * of committing work that did not run alone, and the locked call throws
 * {@link dev.distlock.LockLostException} with {@code rolledBack()} true. Outside a locked call it
 * does nothing but look.
 */
@GuardedCommit
@Interceptor
@Priority(CommitGuard.PRIORITY)
public class CommitGuard {

    /** Just inside {@code @Transactional} ({@code PLATFORM_BEFORE + 200}). */
    static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 201;

    private final LockExecutor executor;

    @Inject
    CommitGuard(LockInterception locks) {
        this.executor = locks.executor();
    }

    @AroundInvoke
    Object guard(InvocationContext invocation) throws Exception {
        executor.guardTransaction(invocation.getTarget(), invocation.getMethod());
        return invocation.proceed();
    }
}
