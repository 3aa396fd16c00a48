package dev.distlock.internal.cdi;

import dev.distlock.WriteLocked;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/** {@link CommitGuard} for methods with {@link WriteLocked}. */
@WriteLocked
@Interceptor
@Priority(CommitGuard.PRIORITY)
public class WriteLockedCommitGuard {

    private final CommitGuard guard;

    @Inject
    WriteLockedCommitGuard(LockInterception locks) {
        this.guard = locks.commitGuard();
    }

    @AroundInvoke
    Object guard(InvocationContext invocation) throws Exception {
        return guard.proceed(invocation);
    }
}
