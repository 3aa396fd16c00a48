package dev.distlock.internal.cdi;

import dev.distlock.internal.core.LockExecutor;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

/**
 * Runs just inside every {@code @Transactional} method of the application. The lock interceptors
 * run outside {@code @Transactional} ({@link LockInterception#PRIORITY}), so that the lock outlives
 * the commit; this one sees a transaction that began inside a locked call — the locked method's
 * own, or one a bean it calls began — and has it checked just before it commits. If the lock is
 * gone by then (a pause longer than the lease, the store lost it), the transaction is rolled back
 * instead of committing work that did not run alone, and the locked call throws
 * {@link dev.distlock.LockLostException} with {@code rolledBack()} true. Outside a locked call it
 * does nothing but look.
 *
 * <p>It is bound by {@code @Transactional} itself, one subclass per transaction attribute (the
 * attribute is a binding member), exactly as the transaction manager's own interceptors are: it
 * runs wherever they run, by whatever route a bean became transactional (class, method,
 * superclass, stereotype, {@code InterceptionFactory}, another extension), and distlock changes no
 * bean to get there.
 */
public abstract class CommitGuard {

    /*
     * No guard for NOT_SUPPORTED and NEVER: no transaction runs inside them. SUPPORTS and MANDATORY
     * run in the caller's, which may have begun inside the locked call without an interceptor
     * (UserTransaction): the guard has it checked too.
     */

    /** Just inside {@code @Transactional} ({@code PLATFORM_BEFORE + 200}). */
    static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 201;

    private final LockExecutor executor;

    CommitGuard(LockInterception locks) {
        this.executor = locks.executor();
    }

    /** For the container's proxies only. */
    CommitGuard() {
        this.executor = null;
    }

    Object guard(InvocationContext invocation) throws Exception {
        executor.guardTransaction(invocation.getTarget(), invocation.getMethod());
        return invocation.proceed();
    }

    @Transactional(TxType.REQUIRED)
    @Interceptor
    @Priority(PRIORITY)
    public static class Required extends CommitGuard {
        @Inject
        Required(LockInterception locks) {
            super(locks);
        }

        @AroundInvoke
        Object intercept(InvocationContext invocation) throws Exception {
            return guard(invocation);
        }
    }

    @Transactional(TxType.REQUIRES_NEW)
    @Interceptor
    @Priority(PRIORITY)
    public static class RequiresNew extends CommitGuard {
        @Inject
        RequiresNew(LockInterception locks) {
            super(locks);
        }

        @AroundInvoke
        Object intercept(InvocationContext invocation) throws Exception {
            return guard(invocation);
        }
    }

    @Transactional(TxType.MANDATORY)
    @Interceptor
    @Priority(PRIORITY)
    public static class Mandatory extends CommitGuard {
        @Inject
        Mandatory(LockInterception locks) {
            super(locks);
        }

        @AroundInvoke
        Object intercept(InvocationContext invocation) throws Exception {
            return guard(invocation);
        }
    }

    @Transactional(TxType.SUPPORTS)
    @Interceptor
    @Priority(PRIORITY)
    public static class Supports extends CommitGuard {
        @Inject
        Supports(LockInterception locks) {
            super(locks);
        }

        @AroundInvoke
        Object intercept(InvocationContext invocation) throws Exception {
            return guard(invocation);
        }
    }
}
