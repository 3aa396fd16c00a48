package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/** {@link CommitGuard} for methods with {@link Locked}. */
@Locked
@Interceptor
@Priority(CommitGuard.PRIORITY)
public class LockedCommitGuard {

    private final CommitGuard guard;

    @Inject
    LockedCommitGuard(LockInterception locks) {
        this.guard = locks.commitGuard();
    }

    @AroundInvoke
    Object guard(InvocationContext invocation) throws Exception {
        return guard.proceed(invocation);
    }
}
