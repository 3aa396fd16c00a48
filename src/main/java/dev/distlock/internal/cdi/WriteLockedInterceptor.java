package dev.distlock.internal.cdi;

import dev.distlock.WriteLocked;
import dev.distlock.LockMode;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Intercepted;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/** Binds {@link WriteLocked} to the engine. */
@WriteLocked
@Interceptor
@Priority(LockInterception.PRIORITY)
public class WriteLockedInterceptor {

    private final InterceptedBean bean;

    @Inject
    WriteLockedInterceptor(LockInterception locks, @Intercepted Bean<?> intercepted) {
        this.bean = locks.intercepting(intercepted);
    }

    @AroundInvoke
    Object lock(InvocationContext invocation) throws Exception {
        return bean.intercept(invocation, LockMode.WRITE);
    }
}
