package dev.distlock.example.shop;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
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
 * What the end-to-end tests ask of the server with distlock deployed that the shop's own flows do
 * not show ({@link ChecksResource}): a bean that is {@code @Transactional} through a stereotype runs
 * in a transaction, and a later caller on the thread of an asynchronous {@code @Transactional}
 * locked call (its method returned an unfinished stage) does not enter its lock; and MicroProfile
 * Fault Tolerance outside the lock acts on it: a retry waits its turn, a fallback answers for a key
 * held elsewhere, a timeout ends a wait.
 */
@ApplicationScoped
public class TransactionChecks {

    @Inject
    Stereotyped stereotyped;
    @Inject
    TransactionChecks self;

    /** Transactional only through its stereotype. */
    @ApplicationScoped
    @TransactionalService
    public static class Stereotyped {
        @Resource
        TransactionSynchronizationRegistry registry;

        public boolean inTransaction() {
            return registry.getTransactionKey() != null;
        }
    }

    public boolean stereotypedInTransaction() {
        return stereotyped.inTransaction();
    }

    /** {@code refused}: the later caller did not enter; {@code entered}: it did, into a lock the unfinished call held. */
    public String laterCallerOnTheThread(String key) throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        CompletionStage<String> unfinished = self.reserveLater(key, done);
        String answer;
        try {
            answer = self.touch(key);
        } catch (LockTimeoutException refused) {
            answer = "refused";
        }
        done.complete("done");
        unfinished.toCompletableFuture().get(10, TimeUnit.SECONDS);
        return answer;
    }

    @Locked("check:{key}")
    @Transactional
    public CompletionStage<String> reserveLater(String key, CompletionStage<String> done) {
        return done;
    }

    @Locked(value = "check:{key}", waitTime = 0)
    public String touch(String key) {
        return "entered";
    }

    /** Holds the key for {@code millis}: the holder elsewhere that the Fault Tolerance checks wait behind. */
    @Locked(value = "check:{key}", waitTime = 10_000)
    public String hold(String key, long millis) throws InterruptedException {
        Thread.sleep(millis);
        return "held";
    }

    /** Tries once, and again every 20 ms until it has the key ({@code mp.fault.tolerance.interceptor.priority=50}). */
    @Locked(value = "check:{key}", waitTime = 0)
    @Retry(retryOn = LockTimeoutException.class, maxRetries = -1, maxDuration = 30_000, delay = 20, jitter = 0)
    public String retried(String key) {
        return "served";
    }

    /**
     * The retry storm's call: tries once, and again every 3–7 ms until it has the key; answers its
     * region as {@link VirtualThreadChecks} does ({@code <thread kind> <entered> <left>}).
     */
    @Locked(value = "retried:{key}", waitTime = 0)
    @Retry(retryOn = LockTimeoutException.class, maxRetries = -1, maxDuration = 60_000, delay = 5, jitter = 2)
    public String retriedRegion(String key) {
        return VirtualThreadChecks.region();
    }

    /** Completes a stage a millisecond later, on another thread than the one that returned it. */
    private static final Executor A_MOMENT_LATER = CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS, Runnable::run);

    /**
     * Fault Tolerance's {@code @Asynchronous} outside the lock: the lock is taken on Fault Tolerance's
     * thread, and the region ends when the returned stage completes, after the method returned; the
     * lock must be held until then. Answers {@code <thread kind> <entered> <left>}.
     */
    @Asynchronous
    @Locked("later:{key}")
    public CompletionStage<String> laterRegion(String key) {
        return later();
    }

    /** The twin, without the lock. */
    @Asynchronous
    public CompletionStage<String> laterRegionUnlocked(String key) {
        return later();
    }

    private static CompletionStage<String> later() {
        String kind = VirtualThreadChecks.kind(Thread.currentThread());
        long entered = VirtualThreadChecks.epochNanos();
        return CompletableFuture.supplyAsync(() -> kind + " " + entered + " " + VirtualThreadChecks.epochNanos(), A_MOMENT_LATER);
    }

    /** One caller at a time may wait for the key on this server; the next is turned away before it waits. */
    @Locked(value = "check:{key}", waitTime = 10_000)
    @Bulkhead(1)
    public String oneAtATime(String key) {
        return "served";
    }

    /** Opens after four calls of which two or more found the lock store down; tries again a second later. */
    @Locked(value = "breaker:{key}", waitTime = 0)
    @CircuitBreaker(failOn = LockServiceUnavailableException.class, requestVolumeThreshold = 4, failureRatio = 0.5,
            delay = 1_000, successThreshold = 1)
    public String guarded(String key) {
        return "served";
    }

    /** The retry storm's twin: neither locked nor retried. */
    public String unlockedRegion(String key) {
        return VirtualThreadChecks.region();
    }

    /** Tries once; a key held elsewhere is answered by the fallback. */
    @Locked(value = "check:{key}", waitTime = 0)
    @Fallback(fallbackMethod = "busy", applyOn = LockTimeoutException.class)
    public String orBusy(String key) {
        return "served";
    }

    String busy(String key) {
        return "busy";
    }

    /** Waits up to 10 s by its annotation; Fault Tolerance ends the wait after 300 ms. */
    @Locked(value = "check:{key}", waitTime = 10_000)
    @Timeout(300)
    public String waitAtMost300Ms(String key) {
        return "served";
    }
}
