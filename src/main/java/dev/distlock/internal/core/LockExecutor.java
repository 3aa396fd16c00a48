package dev.distlock.internal.core;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockPolicy;
import dev.distlock.spi.NodeName;
import dev.distlock.spi.StoredLock;

import dev.distlock.DistlockException;
import dev.distlock.ForcedRelease;
import dev.distlock.LeaseProof;
import dev.distlock.LocalHandoff;
import dev.distlock.LockContext;
import dev.distlock.LockInfo;
import dev.distlock.LockListener;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
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

    private static final System.Logger LOG = System.getLogger(LockExecutor.class.getName());

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
    private final Inspection inspection;
    private final LockTracing tracing;

    /**
     * @param backend            where the locks live; closed with the engine
     * @param keyPrefix          put before every key, e.g. {@code distlock}
     * @param transactions       the transaction manager, or {@link TransactionBridge#NONE}
     * @param answerGraceMillis  how much longer than {@code waitTime} the backend may take to answer
     *                           before the call fails with {@link LockServiceUnavailableException}
     * @param listener           told of acquisitions, releases, timeouts and lost locks
     * @param handoff            how far a held lock may be passed between callers in this JVM
     * @param verifyBeforeCommit just before a transaction that holds locks commits, check that it
     *                           still holds them, and mark it rollback-only if not
     * @param leaseProof         which locks that check may show held from their lease
     * @param tracing            told of each locked call, for traces; {@link LockTracing#NONE} for none
     */
    public LockExecutor(LockBackend backend, String keyPrefix, TransactionBridge transactions, long answerGraceMillis,
                        LockListener listener, LocalHandoff handoff, boolean verifyBeforeCommit, LeaseProof leaseProof,
                        LockTracing tracing) {
        this(backend, keyPrefix, NodeName.ofThisHost(), transactions, answerGraceMillis, listener, handoff, verifyBeforeCommit,
                leaseProof, tracing);
    }

    /**
     * As above, with the name this server goes by in the store ({@link NodeName}), which the
     * backend keeps beside each holder it takes.
     */
    public LockExecutor(LockBackend backend, String keyPrefix, String nodeName, TransactionBridge transactions,
                        long answerGraceMillis, LockListener listener, LocalHandoff handoff, boolean verifyBeforeCommit,
                        LeaseProof leaseProof, LockTracing tracing) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.transactions = Objects.requireNonNull(transactions, "transactions");
        if (answerGraceMillis <= 0) {
            throw new IllegalArgumentException("answerGraceMillis must be > 0, was " + answerGraceMillis);
        }
        this.answerGraceMillis = answerGraceMillis;
        LockEvents events = new LockEvents(Objects.requireNonNull(listener, "listener"));
        String store = backend.displayName();
        this.releases = new Releases(store, Objects.requireNonNull(handoff, "handoff"), events, leaseWatch, answerGraceMillis,
                HandoffOrder.CONFIRM_FIRST);
        this.acquisitions = new Acquisitions(keyPrefix, backend, leaseWatch, releases, events,
                Objects.requireNonNull(leaseProof, "leaseProof"));
        this.transactionGuard = new TransactionGuard(store, releases, events, verifyBeforeCommit, answerGraceMillis);
        this.chains = new Chains(this.transactions, transactionGuard, Chains.Ownership.CALL_STACK);
        this.inspection = new Inspection(backend, leaseWatch, releases.localQueues, keyPrefix);
        this.tracing = Objects.requireNonNull(tracing, "tracing");
        tracing.nodeName(nodeName);
        backend.identify(NodeName.check(Objects.requireNonNull(nodeName, "nodeName")), keyPrefix);
        backend.bind(leaseWatch::later);
    }

    /** See {@link dev.distlock.DistributedLocks#inspect(String, int)}. */
    public List<LockInfo> inspect(String keyPrefix, int limit) {
        return inspection.inspect(Objects.requireNonNull(keyPrefix, "keyPrefix"), limit);
    }

    /**
     * See {@link dev.distlock.DistributedLocks#forceRelease}: the key's exclusive lock, then its
     * read-write lock, each ended in the backend; holders in this JVM are broken at once, so nothing
     * here passes the lock on, and checked at the next tick rather than at their next round, so they are told.
     */
    public List<String> forceRelease(String key, ForcedRelease how) {
        Objects.requireNonNull(how, "how");
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("the key of the lock to end must not be null or blank, was '" + key + "'");
        }
        List<String> ended = new ArrayList<>();
        for (LockMode mode : new LockMode[] {LockMode.EXCLUSIVE, LockMode.WRITE}) {
            String name = lockName(mode, key);
            List<StoredLock.Holder> holders;
            try {
                holders = backend.forceRelease(name, how.fencedOnly());
            } catch (IllegalStateException refused) {
                LOG.log(System.Logger.Level.WARNING, "distlock: forced release of lock '" + key + "' in " + backend.displayName()
                        + " refused: " + refused.getMessage() + (ended.isEmpty() ? "" : "; already ended: " + ended));
                throw refused;
            }
            if (!holders.isEmpty()) {
                holders.forEach(holder -> ended.add(holder.id()));
                leaseWatch.endedInStore(name);
                LOG.log(System.Logger.Level.WARNING, "distlock: forced release of " + (mode == LockMode.EXCLUSIVE ? "" : "read-write ")
                        + "lock '" + key + "' in " + backend.displayName() + ": ended " + holders
                        + how.reason().map(reason -> ", acknowledged: " + reason).orElse(", held with fencing tokens"));
            }
        }
        return ended;
    }

    /** The name a lock is kept under in the backend ({@link LockNames}). */
    public String lockName(LockMode mode, String key) {
        return acquisitions.name(mode, key);
    }

    /**
     * Runs {@code work} holding every key in {@code keys}.
     *
     * @param keys rendered keys, without prefix; taken in sorted order, duplicates once
     * @param kind how the work hands back its result; stages keep the locks until they complete
     * @return the work's result, or {@link ReturnKind#skipValue()} when skipped on timeout
     * @throws LockTimeoutException            when the locks cannot be had in time and the policy fails
     * @throws LockLostException               when a lock was gone at release (the work ran)
     * @throws LockServiceUnavailableException when the backend cannot be reached
     * @throws Exception                       whatever the work throws, unchanged
     */
    public Object execute(LockPolicy policy, List<String> keys, ReturnKind kind, Callable<?> work) throws Exception {
        return execute(policy, keys, null, kind, work);
    }

    /**
     * {@link #execute(LockPolicy, List, ReturnKind, Callable)}, told to the engine's
     * {@link LockTracing} with the keys' templates: from the call's start until its locks are
     * released (or left to the transaction active at entry), or its stage has completed.
     *
     * @param template the keys' templates as written, never a rendered key; {@code null} when unknown
     */
    public Object execute(LockPolicy policy, List<String> keys, String template, ReturnKind kind, Callable<?> work) throws Exception {
        return execute(policy, keys, template, kind, work, null, null);
    }

    /**
     * {@link #execute(LockPolicy, List, String, ReturnKind, Callable)} for an intercepted
     * invocation: its target and method let the commit guard of its own {@code @Transactional}
     * know it ({@link #guardTransaction(Object, Object)}).
     */
    public Object execute(LockPolicy policy, List<String> keys, String template, ReturnKind kind, Callable<?> work,
                          Object target, Object method) throws Exception {
        LockTracing.Trace trace = tracing.begin(policy.site(), policy.mode(), template);
        if (trace == null) {
            return run(policy, keys, kind, work, null, target, method);
        }
        Object result;
        try {
            result = run(policy, keys, kind, work, trace, target, method);
        } catch (Throwable failure) {
            trace.ended(failure);
            throw failure;
        }
        if (kind == ReturnKind.COMPLETION_STAGE && result instanceof CompletionStage<?> stage) {
            stage.whenComplete((value, failure) -> trace.ended(failure == null ? null : LockErrors.unwrap(failure)));
        } else {
            trace.ended(null);
        }
        return result;
    }

    private Object run(LockPolicy policy, List<String> keys, ReturnKind kind, Callable<?> work, LockTracing.Trace trace,
                       Object target, Object method) throws Exception {
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
            taken = acquisitions.acquireAll(entry.owner(), policy, keys, trace);
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
        LockedCall call = new LockedCall(entry.owner(), taken, entry.outer(), inTransaction, releases, kind, target, method);
        chains.running(entry, call);
        try {
            return runHolding(call, taken, kind, work);
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

    private Object runHolding(LockedCall call, List<Hold> taken, ReturnKind kind, Callable<?> work) throws Exception {
        Object result;
        try {
            result = work.call();
        } catch (Throwable failure) {
            DistlockException releaseFailure = releases.await(call.release());
            String lostBeforeCommit = call.lostBeforeCommit();
            if (lostBeforeCommit != null && !(failure instanceof DistlockException)) {
                // The work returned, and its transaction failed to commit because distlock doomed it.
                throw rolledBack(taken, lostBeforeCommit, failure);
            }
            if (releaseFailure != null) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        if (kind == ReturnKind.COMPLETION_STAGE && result != null) {
            return releaseWhenComplete(call, (CompletionStage<?>) result);
        }
        DistlockException releaseFailure = releases.await(call.release());
        if (releaseFailure != null) {
            throw releaseFailure;
        }
        return result;
    }

    private static LockLostException rolledBack(List<Hold> taken, String problems, Throwable transactionFailure) {
        return new LockLostException(taken.get(0).name, "The transaction was rolled back before its commit: " + problems
                + ". Nothing it wrote was committed; the call can be retried.", transactionFailure);
    }

    private static CompletableFuture<Object> releaseWhenComplete(LockedCall call, CompletionStage<?> stage) {
        CompletableFuture<Object> released = new CompletableFuture<>();
        stage.whenComplete((value, error) -> call.release().whenComplete((ignored, releaseError) -> {
            DistlockException releaseFailure = LockErrors.failureOf(releaseError);
            if (error != null) {
                Throwable cause = LockErrors.unwrap(error);
                if (releaseFailure != null) {
                    cause.addSuppressed(releaseFailure);
                }
                released.completeExceptionally(cause);
            } else if (releaseFailure != null) {
                released.completeExceptionally(releaseFailure);
            } else {
                released.complete(value);
            }
        }));
        return released;
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

    /**
     * Makes every later fencing token of the exclusive lock on {@code key} larger than
     * {@code floor}, e.g. the largest token a store holds, after Redis lost its data and its
     * clock cannot be trusted (see {@link LockBackend#raiseFencingFloor}).
     *
     * @return the token counter afterwards
     */
    public long raiseFencingFloor(String key, long floor) {
        return backend.raiseFencingFloor(lockName(LockMode.EXCLUSIVE, key), floor);
    }

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
