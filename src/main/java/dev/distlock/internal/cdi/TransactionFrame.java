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
 * Runs just outside the transaction manager's interceptor of every {@code @Transactional} method
 * that may suspend a transaction ({@code REQUIRED} may, when its method returns a stage and the
 * manager commits when the stage completes; {@code REQUIRES_NEW} and {@code NOT_SUPPORTED} do), so
 * that a suspended transaction's locks are reentered only by calls nested inside the invocation
 * that suspended it: a transaction left suspended when its method returned makes no later caller
 * on the thread its owner ({@link LockExecutor#transactionFrameEntered(boolean)}). Bound like
 * {@link CommitGuard}, by {@code @Transactional} itself.
 */
public abstract class TransactionFrame {

    /** Between the lock interceptors ({@code PLATFORM_BEFORE + 100}) and {@code @Transactional} ({@code + 200}). */
    static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 199;

    private final LockExecutor executor;
    /** Whether the transaction manager suspends the caller's transaction for the method. */
    private final boolean suspends;

    TransactionFrame(LockInterception locks, boolean suspends) {
        this.executor = locks.executor();
        this.suspends = suspends;
    }

    /** For the container's proxies only. */
    TransactionFrame() {
        this.executor = null;
        this.suspends = false;
    }

    Object frame(InvocationContext invocation) throws Exception {
        Object entered = executor.transactionFrameEntered(suspends);
        try {
            return invocation.proceed();
        } finally {
            executor.transactionFrameLeft(entered);
        }
    }

    @Transactional(TxType.REQUIRED)
    @Interceptor
    @Priority(PRIORITY)
    public static class Required extends TransactionFrame {
        @Inject
        Required(LockInterception locks) {
            super(locks, false);
        }

        @AroundInvoke
        Object intercept(InvocationContext invocation) throws Exception {
            return frame(invocation);
        }
    }

    @Transactional(TxType.REQUIRES_NEW)
    @Interceptor
    @Priority(PRIORITY)
    public static class RequiresNew extends TransactionFrame {
        @Inject
        RequiresNew(LockInterception locks) {
            super(locks, true);
        }

        @AroundInvoke
        Object intercept(InvocationContext invocation) throws Exception {
            return frame(invocation);
        }
    }

    @Transactional(TxType.NOT_SUPPORTED)
    @Interceptor
    @Priority(PRIORITY)
    public static class NotSupported extends TransactionFrame {
        @Inject
        NotSupported(LockInterception locks) {
            super(locks, true);
        }

        @AroundInvoke
        Object intercept(InvocationContext invocation) throws Exception {
            return frame(invocation);
        }
    }
}
