package dev.distlock.runtimes.shapes;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.faulttolerance.Asynchronous;
import org.eclipse.microprofile.faulttolerance.Bulkhead;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * MicroProfile Fault Tolerance on locked methods, with Fault Tolerance outside the lock
 * ({@code mp.fault.tolerance.interceptor.priority=50} in the application's configuration): a caller
 * that finds the key held retries until it has it, each try a new acquisition and a new transaction;
 * a timeout ends a wait, a fallback answers for a key held elsewhere, a bulkhead turns a caller away
 * before it waits, a circuit breaker opens on a store that is down, and Fault Tolerance's
 * {@code @Asynchronous} takes the lock on its own thread. The region lasts until just before the
 * transaction commits, or until the returned stage completes.
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

    /** Completes a stage a millisecond later, on another thread than the one that returned it. */
    private static final Executor A_MOMENT_LATER = CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS, Runnable::run);

    /**
     * Fault Tolerance's {@code @Asynchronous} outside the lock: the lock is taken on Fault Tolerance's
     * thread, and the region ends when the returned stage completes, after the method has returned:
     * the lock must be held until then.
     */
    @Asynchronous
    @Locked("later:{key}")
    public CompletionStage<String> later(String key) {
        regions.enter("ft-asynchronous", key);
        return CompletableFuture.supplyAsync(() -> {
            regions.leave("ft-asynchronous", key);
            return "ok";
        }, A_MOMENT_LATER);
    }

    /** The twin, without the lock. */
    @Asynchronous
    public CompletionStage<String> laterUnlocked(String key) {
        regions.enter("ft-asynchronous-unlocked", key);
        return CompletableFuture.supplyAsync(() -> {
            regions.leave("ft-asynchronous-unlocked", key);
            return "ok";
        }, A_MOMENT_LATER);
    }

    /** Opens after four calls of which two or more found the lock store down; tries again a second later. */
    @Locked(value = "breaker:{key}", waitTime = 0)
    @CircuitBreaker(failOn = LockServiceUnavailableException.class, requestVolumeThreshold = 4, failureRatio = 0.5,
            delay = 1_000, successThreshold = 1)
    public String guarded(String key) {
        return "served";
    }
}
