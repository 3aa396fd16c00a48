package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.LockMode;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Intercepted;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/** Binds {@link Locked} to the engine. */
@Locked
@Interceptor
@Priority(LockInterception.PRIORITY)
public class LockedInterceptor {

    private final InterceptedBean bean;

    @Inject
    LockedInterceptor(LockInterception locks, @Intercepted Bean<?> intercepted) {
        this.bean = locks.intercepting(intercepted);
    }

    @AroundInvoke
    Object lock(InvocationContext invocation) throws Exception {
        return bean.intercept(invocation, LockMode.EXCLUSIVE);
    }
}
