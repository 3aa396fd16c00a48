package dev.distlock.internal.cdi;

import dev.distlock.ReadLocked;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/** {@link CommitGuard} for methods with {@link ReadLocked}. */
@ReadLocked
@Interceptor
@Priority(CommitGuard.PRIORITY)
public class ReadLockedCommitGuard {

    private final CommitGuard guard;

    @Inject
    ReadLockedCommitGuard(LockInterception locks) {
        this.guard = locks.commitGuard();
    }

    @AroundInvoke
    Object guard(InvocationContext invocation) throws Exception {
        return guard.proceed(invocation);
    }
}
