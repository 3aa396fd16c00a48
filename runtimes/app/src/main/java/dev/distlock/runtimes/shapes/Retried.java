package dev.distlock.runtimes.shapes;

import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.faulttolerance.Bulkhead;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;

/**
 * MicroProfile Fault Tolerance on locked methods, with Fault Tolerance outside the lock
 * ({@code mp.fault.tolerance.interceptor.priority=50} in the application's configuration): a caller
 * that finds the key held retries until it has it, each try a new acquisition and a new transaction;
 * a timeout ends a wait, a fallback answers for a key held elsewhere, a bulkhead turns a caller away
 * before it waits. The region lasts until just before the transaction commits.
 */
@ApplicationScoped
public class Retried {

    @Inject
    Regions regions;

    @Locked(value = "retried:{key}", waitTime = 0)
    @Retry(retryOn = LockTimeoutException.class, maxRetries = -1, maxDuration = 120_000, delay = 2, jitter = 0)
    @Transactional
    public void book(String key) {
        regions.enter("retried", key);
        regions.think();
        regions.leaveBeforeCommit("retried", key);
    }

    /** The twin, without the lock: the same retry, nothing to wait for. */
    @Retry(maxRetries = 3, delay = 2, jitter = 0)
    @Transactional
    public void bookUnlocked(String key) {
        regions.enter("retried-unlocked", key);
        regions.think();
        regions.leaveBeforeCommit("retried-unlocked", key);
    }

    /** Tries once; a key held elsewhere is answered by the fallback. */
    @Locked(value = "retried:{key}", waitTime = 0)
    @Fallback(fallbackMethod = "busy", applyOn = LockTimeoutException.class)
    public String orBusy(String key) {
        return "served";
    }

    String busy(String key) {
        return "busy";
    }

    /** One caller at a time, and it may wait 10 s for the key: a second is turned away before it waits. */
    @Locked(value = "retried:{key}", waitTime = 10_000)
    @Bulkhead(1)
    public String oneAtATime(String key) {
        return "served";
    }

    /** Waits up to 10 s by its annotation; Fault Tolerance ends the wait after 300 ms. */
    @Locked(value = "retried:{key}", waitTime = 10_000)
    @Timeout(300)
    public String waitAtMost300Ms(String key) {
        return "served";
    }
}
