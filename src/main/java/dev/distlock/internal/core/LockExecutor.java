package dev.distlock.internal.core;

import dev.distlock.EngineFactory;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockPolicy;

import dev.distlock.DistlockException;
import dev.distlock.LockContext;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs work under distributed locks. Usable without CDI: the interceptors and
 * {@link EngineLocks} are thin adapters over it. Where the locks live is the
 * {@link LockBackend}'s business; everything else is here, once for every backend.
 *
 * <p>Locks are owned by an invocation chain (or by the active transaction), never by a thread:
 * see {@link LockOwner}. Keys are taken in sorted order, so two calls that need the same keys
 * cannot deadlock; they are released when the work returns, when its stage completes, or when the
 * transaction that was active at entry completes.
 */
public final class LockExecutor {

    private final LockBackend backend;
    private final TransactionBridge transactions;
    /** The engine's one thread: lease checks, confirmations, a backend's timed work. Stopped by {@link #close()}. */
    private final LeaseWatch leaseWatch = new LeaseWatch("distlock-lease-watch");
    /** How long closing waits for the backend to take back locks kept for a minimum hold. */
    private final long answerGraceMillis;
    private final Releases releases;
    private final Acquisitions acquisitions;
    private final TransactionGuard transactionGuard;
    private final Chains chains;
    private final CombinedCalls combined = new CombinedCalls(this);
    private final Administration administration;
    private final LockTracing tracing;

    /**
     * @param backend  where the locks live; closed with the engine
     * @param settings what the engine is made with: the application's settings, the transaction
     *                 manager and the tracer
     */
    public LockExecutor(LockBackend backend, ExecutorSettings settings) {
        this.backend = Objects.requireNonNull(backend, "backend");
        EngineFactory.Settings locks = settings.locks();
        this.transactions = settings.transactions();
        this.answerGraceMillis = locks.answerGrace().toMillis();
        LockEvents events = new LockEvents(locks.listener());
        String store = backend.displayName();
        this.releases = new Releases(store, locks.localHandoff(), events, leaseWatch, answerGraceMillis, HandoffOrder.CONFIRM_FIRST);
        this.acquisitions = new Acquisitions(locks.keyPrefix(), backend, leaseWatch, releases, events, locks.leaseProof());
        this.transactionGuard = new TransactionGuard(store, releases, events, locks.verifyBeforeCommit(), answerGraceMillis);
        this.chains = new Chains(transactions, transactionGuard, Chains.Ownership.CALL_STACK);
        this.administration = new Administration(backend, leaseWatch, acquisitions, releases.localQueues, locks.keyPrefix());
        this.tracing = settings.tracing();
        String nodeName = locks.nodeNameOrHost();
        tracing.nodeName(nodeName);
        backend.identify(nodeName, locks.keyPrefix());
        backend.bind(leaseWatch::later);
    }

    /** Inspection, forced release and fencing floors: what an operator does to the locks. */
    public Administration administration() {
        return administration;
    }

    /** The name a lock is kept under in the backend ({@link LockNames}). */
    public String lockName(LockMode mode, String key) {
        return acquisitions.name(mode, key);
    }

    /**
     * Runs the request's work holding every one of its keys, told to the engine's {@link LockTracing}
     * with the keys' templates: from the call's start until its locks are released (or left to the
     * transaction active at entry), or its stage has completed.
     *
     * @return the work's result, or {@link ReturnKind#skipValue()} when skipped on timeout
     * @throws LockTimeoutException            when the locks cannot be had in time and the policy fails
     * @throws LockLostException               when a lock was gone at release (the work ran)
     * @throws LockServiceUnavailableException when the backend cannot be reached
     * @throws Exception                       whatever the work throws, unchanged
     */
    public Object execute(LockRequest request) throws Exception {
        LockTracing.Trace trace = tracing.begin(request.policy().site(), request.policy().mode(), request.template());
        if (trace == null) {
            return run(request, null);
        }
        Object result;
        try {
            result = run(request, trace);
        } catch (Throwable failure) {
            trace.ended(failure);
            throw failure;
        }
        if (request.kind() == ReturnKind.COMPLETION_STAGE && result instanceof CompletionStage<?> stage) {
            stage.whenComplete((value, failure) -> trace.ended(failure == null ? null : LockErrors.unwrap(failure)));
        } else {
            trace.ended(null);
        }
        return result;
    }

    private Object run(LockRequest request, LockTracing.Trace trace) throws Exception {
        LockPolicy policy = request.policy();
        ReturnKind kind = request.kind();
        if (leaseWatch.isClosed()) {
            LockServiceUnavailableException closed = new LockServiceUnavailableException("distlock is closed (the "
                    + "application is stopping): no lock is taken, and " + policy.site() + " did not run.", null);
            if (kind == ReturnKind.COMPLETION_STAGE) {
                return CompletableFuture.failedFuture(closed);
            }
            throw closed;
        }
        Chains.Entry entry = chains.enter();
        List<Hold> taken;
        try {
            taken = acquisitions.acquireAll(entry.owner(), policy, request.keys(), trace);
        } catch (DistlockException e) {
            chains.returned(entry);
            if (kind == ReturnKind.COMPLETION_STAGE) {
                return CompletableFuture.failedFuture(e);
            }
            throw e;
        }
        if (taken == null) {
            chains.returned(entry);
            return kind.skipValue();
        }
        TransactionHolds inTransaction;
        try {
            inTransaction = chains.claim(entry, taken);
        } catch (RuntimeException e) {
            chains.returned(entry);
            releases.await(releases.callDone(taken));
            throw e;
        }
        LockedCall call = new LockedCall(entry.owner(), taken, entry.outer(), inTransaction, releases, kind,
                request.target(), request.method());
        chains.running(entry, call);
        try {
            return call.run(request.work());
        } finally {
            chains.returned(entry);
        }
    }

    /**
     * Just outside the transaction manager's interceptor of a {@code @Transactional} invocation
     * (the CDI layer's transaction frame). One that suspends the caller's transaction
     * ({@code REQUIRES_NEW}, {@code NOT_SUPPORTED}) notes it as open on this thread, so that the
     * calls nested inside stay its chain.
     *
     * @param suspends whether the invocation suspends the caller's transaction
     * @return what {@link #transactionFrameLeft(Object)} puts back when the invocation returns
     */
    public Object transactionFrameEntered(boolean suspends) {
        return chains.frameEntered(suspends);
    }

    /**
     * The {@code @Transactional} invocation has returned: the transaction noted as open on this
     * thread is again what it was when it was entered, unless the one noted now is the thread's
     * current transaction. One that it left suspended (its method returned a stage that the
     * transaction manager commits when it completes) makes no later caller on the thread its owner.
     *
     * @param entered what {@link #transactionFrameEntered(boolean)} returned
     */
    public void transactionFrameLeft(Object entered) {
        chains.frameLeft(entered);
    }

    /**
     * Called just inside every {@code @Transactional} method (the CDI layer's commit guard), with
     * that invocation's target and method: a transaction active there that began inside the current
     * locked call is checked just before it commits, like one that was active when the locks were
     * taken. Without this, the usual order ({@code @Locked} outside {@code @Transactional}) would
     * commit work done under a lock lost meanwhile, and only the release, after the commit, would
     * tell. When it is the locked method's own {@code @Transactional} that began it, the call is
     * done as soon as it has completed.
     *
     * @param target the intercepted invocation's target, {@code null} when unknown
     * @param method the intercepted invocation's method, {@code null} when unknown
     */
    public void guardTransaction(Object target, Object method) {
        chains.guardTransaction(target, method);
    }

    /** {@link #guardTransaction(Object, Object)} for a transaction begun by work inside the current locked call. */
    public void guardTransaction() {
        guardTransaction(null, null);
    }

    /**
     * Stops the engine's thread and the backend. Locks still held are no longer watched and end
     * with their lease (or session); later calls fail with {@link LockServiceUnavailableException}.
     * Idempotent.
     */
    public void close() {
        if (!leaseWatch.isClosed()) {
            try {
                releases.giveBackAllKept().get(answerGraceMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // Not answered in time: those locks end with their lease, as every other held lock does.
            }
        }
        leaseWatch.close();
        backend.close();
    }

    /** Whether a locked call runs on this thread, or a transaction is active: a combined call is then served alone. */
    boolean inChainOrTransaction() {
        return chains.current() != null || transactions.current() != null;
    }

    /** Combined calls over this engine ({@link dev.distlock.Combined}). */
    public CombinedCalls combined() {
        return combined;
    }

    /** The engine's lease watch; for tests in this package. */
    LeaseWatch leaseWatch() {
        return leaseWatch;
    }

    /** Where this engine's locks live. */
    public LockBackend backend() {
        return backend;
    }

    /**
     * The current thread's locked call gives its locks back to the backend when it is done, passing
     * none of them on in this JVM: for a combined batch, after which another JVM's callers go next.
     */
    void giveBackAtRelease() {
        LockedCall call = chains.current();
        if (call != null) {
            call.owner.endTenuresWithTheirHolds();
        }
    }

    /** What the current thread's locked call holds. */
    public LockContext context() {
        return context;
    }

    private final LockContext context = new LockContext() {
        @Override
        public OptionalLong fencingToken() {
            LockedCall call = chains.current();
            return token(call == null ? 0 : call.owner.latestFencingToken());
        }

        @Override
        public OptionalLong fencingToken(String key) {
            LockedCall call = chains.current();
            return token(call == null ? 0 : call.owner.fencingToken(lockName(LockMode.EXCLUSIVE, key)));
        }

        private OptionalLong token(long value) {
            return value == 0 ? OptionalLong.empty() : OptionalLong.of(value);
        }
    };

    /** How many times a lock was passed from one caller to the next in this JVM without the backend. */
    public long handoffCount() {
        return releases.handoffCount();
    }

    /**
     * Keys with a local queue right now; for tests and benchmarks, which check that no queue
     * outlives its use (must drop to 0 when nothing is locked).
     */
    public int localQueueCount() {
        return releases.localQueues.size();
    }
}
