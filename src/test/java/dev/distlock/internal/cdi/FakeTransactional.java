package dev.distlock.internal.cdi;

import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.InterceptorBinding;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionalException;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * {@code @Transactional} over {@link FakeTransactionRegistry}: begins a transaction on entry and
 * commits it on exit, at {@code @Transactional}'s priority; a commit that ends in a rollback
 * throws what a transaction manager throws.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface FakeTransactional {

    @FakeTransactional
    @jakarta.interceptor.Interceptor
    @Priority(jakarta.interceptor.Interceptor.Priority.PLATFORM_BEFORE + 200)
    class Interceptor {
        @Inject
        FakeTransactionRegistry registry;

        @AroundInvoke
        Object around(InvocationContext invocation) throws Exception {
            registry.begin();
            Object result;
            try {
                result = invocation.proceed();
            } catch (Exception e) {
                registry.complete(Status.STATUS_ROLLEDBACK);
                throw e;
            }
            if (registry.complete(Status.STATUS_COMMITTED) != Status.STATUS_COMMITTED) {
                throw new TransactionalException("the transaction was marked rollback-only and rolled back",
                        new RollbackException("rolled back"));
            }
            return result;
        }
    }
}
