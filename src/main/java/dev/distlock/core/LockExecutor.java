package dev.distlock.core;

import dev.distlock.LocalHandoff;
import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.DistlockException;
import dev.distlock.LockContext;
import dev.distlock.LockLostException;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import dev.distlock.OnTimeout;
import org.redisson.RedissonFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs work under distributed locks. Usable without CDI: the interceptors and
 * {@link dev.distlock.DistributedLocks} are thin adapters over it.
 *
 * <p>Locks are owned by an invocation chain (or by the active transaction), never by a thread:
 * see {@link LockOwner}. Keys are taken in sorted order, so two calls that need the same keys
 * cannot deadlock; they are released when the work returns, when its stage completes, or when the
 * transaction that was active at entry completes.
 */
public final class LockExecutor {

    private static final System.Logger LOG = System.getLogger(LockExecutor.class.getName());
    /** How long callers here hold off after their JVM gave a wanted lock back at the handoff bound. */
    private static final long YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** A release with nothing to report; shared, since a completed future cannot change. */
    private static final CompletableFuture<DistlockException> NO_FAILURE = CompletableFuture.completedFuture(null);

    private final RedisClientSource redis;
    /** {@code prefix:namespace:} of each mode, by ordinal: built once, not per call. */
    private final String[] keyPrefixes;
    private final TransactionBridge transactions;
    private final long answerGraceMillis;
    private final LockListener listener;
    private final LocalHandoff handoff;
    private final boolean verifyBeforeCommit;
    private final long handoffNanos;
    /**
     * The owner of the locked call running on this thread, in slot 0. A slot that stays, rather
     * than a set and a remove per call, which rework the thread's map of locals each time; an
     * {@code Object[]} so that a pooled server thread never keeps an application class alive.
     */
    private final ThreadLocal<Object[]> chain = ThreadLocal.withInitial(() -> new Object[1]);
    private final LocalQueues localQueues = new LocalQueues(this::releaseAbandoned);
    private final LongAdder handoffs = new LongAdder();
    /** The key under which a transaction keeps this executor's owner. */
    private final Object transactionResourceKey = new Object();
    /** The engine's one thread: lease checks, confirmations, sweeps. Stopped by {@link #close()}. */
    private final LeaseWatch leaseWatch = new LeaseWatch("distlock-lease-watch");

    /**
     * @param redis             where the client comes from
     * @param keyPrefix         put before every key, e.g. {@code distlock}
     * @param transactions      the transaction manager, or {@link TransactionBridge#NONE}
     * @param answerGraceMillis how much longer than {@code waitTime} Redis may take to answer
     *                          before the call fails with {@link LockServiceUnavailableException}
     */
    public LockExecutor(RedisClientSource redis, String keyPrefix, TransactionBridge transactions,
                        long answerGraceMillis) {
        this(redis, keyPrefix, transactions, answerGraceMillis, LockListener.NONE);
    }

    /** @param listener told of acquisitions, releases, timeouts and lost locks */
    public LockExecutor(RedisClientSource redis, String keyPrefix, TransactionBridge transactions,
                        long answerGraceMillis, LockListener listener) {
        this(redis, keyPrefix, transactions, answerGraceMillis, listener, LocalHandoff.DEFAULT, true);
    }

    /**
     * @param handoff            how far a held lock may be passed between callers in this JVM
     * @param verifyBeforeCommit just before a transaction that holds locks commits, check in Redis
     *                           that it still holds them, and mark it rollback-only if not
     */
    public LockExecutor(RedisClientSource redis, String keyPrefix, TransactionBridge transactions,
                        long answerGraceMillis, LockListener listener, LocalHandoff handoff, boolean verifyBeforeCommit) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.handoff = Objects.requireNonNull(handoff, "handoff");
        this.verifyBeforeCommit = verifyBeforeCommit;
        this.handoffNanos = handoff.maxTime().toNanos();
        this.redis = Objects.requireNonNull(redis, "redis");
        String prefix = KeyEncoding.checkPrefix(keyPrefix);
        this.keyPrefixes = new String[LockMode.values().length];
        for (LockMode mode : LockMode.values()) {
            // Exclusive and read-write locks are different Redis structures: they never share a key.
            keyPrefixes[mode.ordinal()] = prefix + (mode == LockMode.EXCLUSIVE ? ":lock:" : ":rw:");
        }
        this.transactions = Objects.requireNonNull(transactions, "transactions");
        if (answerGraceMillis <= 0) {
            throw new IllegalArgumentException("answerGraceMillis must be > 0, was " + answerGraceMillis);
        }
        this.answerGraceMillis = answerGraceMillis;
    }

    /** The Redis key of a lock: prefix, namespace of the mode, then the key. */
    public String redisKey(LockMode mode, String key) {
        return keyPrefixes[mode.ordinal()].concat(key);
    }

    /**
     * Runs {@code work} holding every key in {@code keys}.
     *
     * @param keys rendered keys, without prefix; taken in sorted order, duplicates once
     * @param kind how the work hands back its result; stages keep the locks until they complete
     * @return the work's result, or {@link ReturnKind#skipValue()} when skipped on timeout
     * @throws LockTimeoutException            when the locks cannot be had in time and the policy fails
     * @throws LockLostException               when a lock was gone at release (the work ran)
     * @throws LockServiceUnavailableException when Redis cannot be reached
     * @throws Exception                       whatever the work throws, unchanged
     */
    public Object execute(LockPolicy policy, List<String> keys, ReturnKind kind, Callable<?> work) throws Exception {
        if (leaseWatch.isClosed()) {
            LockServiceUnavailableException closed = new LockServiceUnavailableException("distlock is closed (the "
                    + "application is stopping): no lock is taken, and " + policy.site() + " did not run.", null);
            if (kind == ReturnKind.COMPLETION_STAGE) {
                return CompletableFuture.failedFuture(closed);
            }
            throw closed;
        }
        TransactionBridge.Scope transaction = transactions.current();
        Object[] slot = chain.get();
        LockOwner owner = (LockOwner) slot[0];
        boolean chainRoot = owner == null;
        if (chainRoot) {
            owner = transaction == null ? null : (LockOwner) transaction.getResource(transactionResourceKey);
            if (owner == null) {
                owner = new LockOwner();
            }
            slot[0] = owner;
        }
        try {
            List<Hold> taken;
            try {
                taken = acquireAll(owner, policy, keys);
            } catch (DistlockException e) {
                if (kind == ReturnKind.COMPLETION_STAGE) {
                    return CompletableFuture.failedFuture(e);
                }
                throw e;
            }
            if (taken == null) {
                return kind.skipValue();
            }
            if (transaction != null) {
                try {
                    retainUntilCompletion(transaction, owner, taken);
                } catch (RuntimeException e) {
                    await(releaseAll(owner, taken));
                    throw e;
                }
            }
            return runHolding(owner, taken, kind, work);
        } finally {
            if (chainRoot) {
                slot[0] = null;
            }
        }
    }

    /**
     * A transaction was active when the locks were asked for: it keeps them until it has
     * committed or rolled back, and later calls in it reuse the same owner.
     */
    private void retainUntilCompletion(TransactionBridge.Scope transaction, LockOwner owner, List<Hold> taken) {
        for (Hold hold : taken) {
            owner.retain(hold);
        }
        if (transaction.getResource(transactionResourceKey) == null) {
            transaction.putResource(transactionResourceKey, owner);
        }
        if (registerOnce(transaction, owner, TransactionRegistration.Kind.RELEASE)) {
            transaction.afterCompletion(() -> releaseAfterTransaction(owner));
        }
        if (verifyBeforeCommit && registerOnce(transaction, owner, TransactionRegistration.Kind.VERIFY)) {
            transaction.beforeCommit(() -> verifyBeforeCommit(transaction, owner));
        }
    }

    /** @return true the first time an owner registers this kind of callback with the transaction */
    private boolean registerOnce(TransactionBridge.Scope transaction, LockOwner owner, TransactionRegistration.Kind kind) {
        TransactionRegistration registration = new TransactionRegistration(transactionResourceKey, owner.id, kind);
        if (transaction.getResource(registration) != null) {
            return false;
        }
        transaction.putResource(registration, Boolean.TRUE);
        return true;
    }

    /**
     * Called from inside the locked call, just inside {@code @Transactional} (the CDI layer's
     * commit guard): when a transaction has begun since the locks were taken, it is checked just
     * before it commits as well, like a transaction that was active when they were taken. Without
     * this, the usual order ({@code @Locked} outside {@code @Transactional}) would commit work done
     * under a lock lost meanwhile, and only the release, after the commit, would tell.
     */
    public void guardTransaction() {
        if (!verifyBeforeCommit) {
            return;
        }
        LockOwner owner = (LockOwner) chain.get()[0];
        if (owner == null) {
            return; // not inside a locked call of this engine
        }
        TransactionBridge.Scope transaction = transactions.current();
        if (transaction == null) {
            return;
        }
        if (registerOnce(transaction, owner, TransactionRegistration.Kind.VERIFY)) {
            transaction.beforeCommit(() -> verifyBeforeCommit(transaction, owner));
        }
    }

    /**
     * Just before the commit: asks Redis whether the owner still holds its locks. If one is gone
     * (or Redis cannot say), the work was not protected to the end, and the transaction is
     * marked rollback-only so that none of it is committed.
     */
    private void verifyBeforeCommit(TransactionBridge.Scope transaction, LockOwner owner) {
        List<Hold> retained = owner.holds();
        List<CompletableFuture<Boolean>> checks = new ArrayList<>(retained.size());
        for (Hold hold : retained) {
            try {
                checks.add(hold.tenure.lock.isHeldByThreadAsync(hold.tenure.redisId).toCompletableFuture());
            } catch (RuntimeException e) {
                checks.add(CompletableFuture.failedFuture(e));
            }
        }
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < retained.size(); i++) {
            Hold hold = retained.get(i);
            try {
                if (!checks.get(i).get(answerGraceMillis, TimeUnit.MILLISECONDS)) {
                    problems.add("lock '" + hold.name + "' was lost (its lease expired or Redis lost it)");
                    reportLost(hold);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                problems.add("interrupted while checking lock '" + hold.name + "'");
            } catch (ExecutionException | TimeoutException e) {
                problems.add("could not confirm lock '" + hold.name + "' (" + unwrap(e) + ")");
            }
        }
        if (!problems.isEmpty()) {
            transaction.setRollbackOnly();
            owner.lostBeforeCommit(String.join("; ", problems));
            LOG.log(System.Logger.Level.WARNING, "Transaction marked rollback-only before commit: " + String.join("; ", problems)
                    + ". The work done under the lock is not committed.");
        }
    }

    /** Tells the listener that the hold's lock was lost: once per lock, however many calls learn it. */
    private void reportLost(Hold hold) {
        reportLost(hold.tenure, hold.name, hold.site, hold.mode);
    }

    private void reportLost(Tenure tenure, String name, String site, LockMode mode) {
        if (tenure.markLossReported()) {
            notify(() -> listener.lost(name, site, mode));
        }
    }

    /** Marks, in the transaction's resources, that an owner's check or release is registered with it. */
    private record TransactionRegistration(Object executor, long ownerId, Kind kind) {
        enum Kind { VERIFY, RELEASE }
    }

    private Object runHolding(LockOwner owner, List<Hold> taken, ReturnKind kind, Callable<?> work) throws Exception {
        Object result;
        try {
            result = work.call();
        } catch (Throwable failure) {
            DistlockException releaseFailure = await(releaseAll(owner, taken));
            String lostBeforeCommit = owner.takeLostBeforeCommit();
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
            return releaseWhenComplete(owner, taken, (CompletionStage<?>) result);
        }
        DistlockException releaseFailure = await(releaseAll(owner, taken));
        if (releaseFailure != null) {
            throw releaseFailure;
        }
        return result;
    }

    private static LockLostException rolledBack(List<Hold> taken, String problems, Throwable transactionFailure) {
        return new LockLostException(taken.get(0).name, "The transaction was rolled back before its commit: " + problems
                + ". Nothing it wrote was committed; the call can be retried.", transactionFailure);
    }

    private CompletableFuture<Object> releaseWhenComplete(LockOwner owner, List<Hold> taken, CompletionStage<?> stage) {
        CompletableFuture<Object> released = new CompletableFuture<>();
        stage.whenComplete((value, error) -> releaseAll(owner, taken).whenComplete((releaseFailure, never) -> {
            if (error != null) {
                Throwable cause = unwrap(error);
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

    // ---------------------------------------------------------------- acquisition

    /** @return the holds taken, in order, or {@code null} if the call is to be skipped */
    private List<Hold> acquireAll(LockOwner owner, LockPolicy policy, List<String> keys) {
        Collection<String> names;
        if (keys.size() == 1) {
            names = List.of(redisKey(policy.mode(), keys.get(0)));
        } else {
            names = new TreeSet<>();
            for (String key : keys) {
                names.add(redisKey(policy.mode(), key));
            }
        }
        long deadline = policy.waitsForever() ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(policy.waitMillis());
        List<Hold> taken = new ArrayList<>(names.size());
        try {
            for (String name : names) {
                Hold hold = owner.reenter(name, policy.mode(), policy.site());
                if (hold == null) {
                    hold = acquire(owner, policy, name, deadline);
                    if (hold == null) {
                        await(releaseAll(owner, taken));
                        if (policy.onTimeout() == OnTimeout.SKIP) {
                            return null;
                        }
                        throw new LockTimeoutException(name, "Could not acquire lock '" + name + "' within "
                                + policy.waitMillis() + " ms (" + policy.mode().annotation() + ".waitTime on "
                                + policy.site() + "); another holder still has it. Retry later, or raise waitTime.");
                    }
                    owner.add(hold);
                }
                taken.add(hold);
            }
            return taken;
        } catch (RuntimeException | Error e) {
            DistlockException releaseFailure = await(releaseAll(owner, taken));
            if (releaseFailure != null) {
                e.addSuppressed(releaseFailure);
            }
            throw e;
        }
    }

    /** @return the new hold, or {@code null} if the wait ran out */
    private Hold acquire(LockOwner owner, LockPolicy policy, String name, long deadline) {
        long startedNanos = System.nanoTime();
        if (policy.mode() == LockMode.READ) {
            return acquireInRedis(policy, name, deadline, startedNanos);
        }
        LocalQueues.Entry turn;
        try {
            turn = localQueues.enter(name, policy.waitsForever() ? -1 : Math.max(0, deadline - System.nanoTime()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DistlockException("Interrupted while waiting for lock '" + name + "'; the method did not run.", e);
        }
        if (turn == null) {
            long waited = System.nanoTime() - startedNanos;
            notify(() -> listener.timedOut(name, policy.site(), policy.mode(), waited));
            return null;
        }
        Hold hold = null;
        try {
            Tenure passedOn = turn.takeHandedOver();
            if (passedOn != null) {
                // A fenced caller may take a fenced tenure: the token belongs to the tenure, and a
                // store refuses every write made under it once a later tenure has written.
                if (policy.watchdog() && (!policy.fenced() || passedOn.fencingToken != 0)) {
                    long waited = System.nanoTime() - startedNanos;
                    notify(() -> listener.acquired(name, policy.site(), policy.mode(), waited));
                    hold = new Hold(name, policy.site(), policy.mode(), passedOn);
                    return hold;
                }
                // This caller asked for a fixed lease, or for a token the tenure does not have: the
                // lock goes back to Redis and is taken anew.
                DistlockException failure = await(unlock(passedOn, name));
                if (failure != null) {
                    LOG.log(System.Logger.Level.DEBUG, "Releasing a lock passed on to a fixed-lease caller: " + failure.getMessage());
                }
            }
            yieldToOtherJvms(turn, policy, deadline);
            hold = acquireInRedis(policy, name, deadline, startedNanos);
            return hold;
        } finally {
            if (hold == null) {
                localQueues.leave(name, turn);
            } else {
                hold.turn = turn;
            }
        }
    }

    /**
     * After this JVM gave a lock back to Redis only because the handoff bound was reached, its
     * next caller holds off for a moment, so that a caller woken in another JVM can take it.
     */
    private static void yieldToOtherJvms(LocalQueues.Entry turn, LockPolicy policy, long deadline) {
        long now = System.nanoTime();
        long pause = turn.yieldUntilNanos - now;
        if (!policy.waitsForever()) {
            pause = Math.min(pause, deadline - now);
        }
        if (pause > 0) {
            LockSupport.parkNanos(pause);
        }
    }

    private Hold acquireInRedis(LockPolicy policy, String name, long deadline, long startedNanos) {
        RedissonClient client = redis.client();
        RLock lock = lockFor(client, name, policy);
        long redisId = LockOwner.nextId();
        // Answers TRUE/FALSE (tryLock), the fencing token or null (fenced), or 0 (waits forever):
        // read with tokenOf, so the common case waits on Redisson's own future, with no stage added.
        CompletableFuture<?> attempt;
        long remainingMillis = policy.waitsForever() ? -1
                : Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        try {
            if (policy.fenced()) {
                attempt = ((RedissonFencedLock) lock)
                        .tryLockAndGetTokenAsync(remainingMillis, policy.leaseMillis(), TimeUnit.MILLISECONDS, redisId)
                        .toCompletableFuture();
            } else if (policy.waitsForever()) {
                attempt = lock.lockAsync(policy.leaseMillis(), TimeUnit.MILLISECONDS, redisId)
                        .toCompletableFuture().thenApply(ignored -> 0L);
            } else {
                attempt = lock.tryLockAsync(remainingMillis, policy.leaseMillis(), TimeUnit.MILLISECONDS, redisId)
                        .toCompletableFuture();
            }
        } catch (RuntimeException e) {
            throw unavailable("acquire", name, e);
        }
        long answerMillis = remainingMillis + answerGraceMillis;
        try {
            Long token = tokenOf(policy.waitsForever() ? attempt.get() : attempt.get(answerMillis, TimeUnit.MILLISECONDS));
            long waited = System.nanoTime() - startedNanos;
            if (token == null) {
                if (remainingMillis > 0) {
                    confirmRedisAnswers(lock, name);
                }
                notify(() -> listener.timedOut(name, policy.site(), policy.mode(), waited));
                return null;
            }
            if (policy.fenced() && token < FencingTokens.SEEDED) {
                token = seedFencingTokens(client, lock, name, redisId);
            }
            notify(() -> listener.acquired(name, policy.site(), policy.mode(), waited));
            Tenure tenure = new Tenure(leaseWatch, lock, redisId, policy.watchdog(), token);
            leaseWatch.watch(tenure, leaseOf(client, policy), () -> reportLost(tenure, name, policy.site(), policy.mode()));
            return new Hold(name, policy.site(), policy.mode(), tenure);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            releaseIfLateAcquired(attempt, lock, redisId, leaseOf(client, policy));
            throw new DistlockException("Interrupted while waiting for lock '" + name + "'; the method did not run.", e);
        } catch (TimeoutException e) {
            releaseIfLateAcquired(attempt, lock, redisId, leaseOf(client, policy));
            throw new LockServiceUnavailableException("Redis did not answer within " + answerMillis
                    + " ms while acquiring lock '" + name + "'; the method did not run.", e);
        } catch (ExecutionException e) {
            // The client gave up; Redis may still run the acquisition when it catches up.
            leaseWatch.sweep(lock, redisId, leaseOf(client, policy));
            throw unavailable("acquire", name, unwrap(e));
        }
    }

    /**
     * A wait that ran out was spent waiting for Redis's message that the lock is free, and Redis
     * may have died meanwhile: Redisson then answers "not acquired" as if another holder still had
     * the lock. One question to Redis tells the two apart, so that the caller learns the truth.
     * Asked only after a wait, never for a single try, whose answer came from Redis itself.
     *
     * @throws LockServiceUnavailableException when Redis does not answer within the answer grace
     */
    private void confirmRedisAnswers(RLock lock, String name) throws InterruptedException {
        try {
            lock.remainTimeToLiveAsync().toCompletableFuture().get(answerGraceMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException ? unwrap(e) : e;
            throw new LockServiceUnavailableException("Could not acquire lock '" + name + "': the wait ran out, and Redis "
                    + "does not answer now (" + cause + "), so it may have failed during the wait rather than "
                    + "another holder keeping the lock; the method did not run.", cause);
        }
    }

    private static long leaseOf(RedissonClient client, LockPolicy policy) {
        return policy.watchdog() ? client.getConfig().getLockWatchdogTimeout() : policy.leaseMillis();
    }

    /** The counter was new (first use, or Redis lost it): see {@link FencingTokens}. */
    private long seedFencingTokens(RedissonClient client, RLock lock, String name, long redisId)
            throws InterruptedException, ExecutionException {
        long token;
        try {
            token = FencingTokens.seed(client, name, redisId).get(answerGraceMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            lock.unlockAsync(redisId);
            throw new LockServiceUnavailableException("Redis did not answer within " + answerGraceMillis
                    + " ms while seeding the fencing tokens of lock '" + name + "'; the method did not run.", e);
        } catch (ExecutionException e) {
            lock.unlockAsync(redisId);
            throw e;
        }
        if (token < 0) {
            throw new LockServiceUnavailableException("Lock '" + name + "' vanished from Redis right after it was "
                    + "acquired (Redis restarted or failed over?); the method did not run.", null);
        }
        return token;
    }

    /**
     * A wait we gave up on may still succeed in Redis: give such a lock straight back; and if the
     * client gives up too, Redis may still run it later, so the id is swept.
     */
    private void releaseIfLateAcquired(CompletableFuture<?> attempt, RLock lock, long redisId, long leaseMillis) {
        attempt.whenComplete((answer, error) -> {
            if (error == null && tokenOf(answer) != null) {
                lock.unlockAsync(redisId);
            } else if (error != null) {
                leaseWatch.sweep(lock, redisId, leaseMillis);
            }
        });
    }

    /** An acquisition's answer: {@code null} when the wait ran out, 0 when acquired, the fencing token if fenced. */
    private static Long tokenOf(Object answer) {
        if (answer instanceof Boolean acquired) {
            return acquired ? 0L : null;
        }
        return (Long) answer;
    }

    private static RLock lockFor(RedissonClient client, String name, LockPolicy policy) {
        if (policy.fenced()) {
            RLock fenced = ExclusiveLock.fenced(client, name);
            if (!(fenced instanceof RedissonFencedLock)) {
                throw new DistlockException("Fenced locks need Redisson's own RFencedLock; this RedissonClient gave a "
                        + fenced.getClass().getName(), null);
            }
            return fenced;
        }
        return switch (policy.mode()) {
            case EXCLUSIVE -> ExclusiveLock.of(client, name);
            case READ -> client.getReadWriteLock(name).readLock();
            case WRITE -> client.getReadWriteLock(name).writeLock();
        };
    }

    // ---------------------------------------------------------------- release

    /**
     * Gives back what this call took, latest first. Never completes exceptionally: the result is
     * the first release failure, or {@code null}.
     */
    private CompletableFuture<DistlockException> releaseAll(LockOwner owner, List<Hold> taken) {
        CompletableFuture<DistlockException> result = NO_FAILURE;
        for (int i = taken.size() - 1; i >= 0; i--) {
            Hold hold = taken.get(i);
            if (owner.exit(hold)) {
                // The first release needs no stage to combine with (the common case: one key).
                result = result == NO_FAILURE ? release(hold)
                        : result.thenCombine(release(hold), LockExecutor::firstWithSuppressed);
            }
        }
        return result;
    }

    private void releaseAfterTransaction(LockOwner owner) {
        for (Hold hold : owner.transactionCompleted()) {
            release(hold).thenAccept(failure -> {
                if (failure != null) {
                    LOG.log(System.Logger.Level.WARNING, "After transaction completion: " + failure.getMessage());
                }
            });
        }
    }

    /**
     * Ends a hold: passes the lock on to the next caller in this JVM that waits for it, or gives
     * it back to Redis. Never completes exceptionally: the result is the failure, or {@code null}.
     */
    private CompletableFuture<DistlockException> release(Hold hold) {
        LocalQueues.Entry turn = hold.turn;
        Tenure tenure = hold.tenure;
        boolean wantedHere = turn != null && passable(tenure, turn);
        if (wantedHere && withinHandoffBound(tenure)) {
            return passOn(hold, turn);
        }
        return tenure.unlock().handle((ignored, error) -> {
            DistlockException failure = error == null ? null : releaseFailure(error, hold.name);
            if (wantedHere) { // wanted here but not passed on: the bound was reached, let another JVM have a turn
                turn.yieldUntilNanos = System.nanoTime() + YIELD_NANOS;
            }
            // The next local contender may go to Redis once Redis has the lock back (or has lost it).
            leaveLocalQueue(hold);
            if (failure == null) {
                notify(() -> listener.released(hold.name, hold.site, hold.mode, System.nanoTime() - hold.acquiredAtNanos));
            } else if (failure instanceof LockLostException) {
                reportLost(hold);
            }
            return failure;
        });
    }

    /** Callers here wait for a lock that may be handed on at all (watchdog, not lost), fenced or not. */
    private boolean passable(Tenure tenure, LocalQueues.Entry turn) {
        return handoff.enabled()
                && tenure.watchdog
                && !tenure.broken
                && turn.othersWaiting();
    }

    private boolean withinHandoffBound(Tenure tenure) {
        return tenure.handoffs < handoff.maxHandoffs()
                && System.nanoTime() - tenure.acquiredAtNanos < handoffNanos;
    }

    /**
     * Leaves the Redis lock to the next local caller and lets it run at once. This caller still
     * waits for Redis to confirm that the lock was held when it finished (see {@link Tenure}), so
     * a lost lock is reported to every caller that ran under it, as a release in Redis would.
     */
    private CompletableFuture<DistlockException> passOn(Hold hold, LocalQueues.Entry turn) {
        Tenure tenure = hold.tenure;
        tenure.handoffs++;
        handoffs.increment();
        CompletableFuture<Boolean> check = tenure.confirm();
        hold.turn = null;
        turn.handOver(tenure);
        localQueues.leave(hold.name, turn);
        return check.handle((held, error) -> {
            if (error == null && Boolean.TRUE.equals(held)) {
                notify(() -> listener.released(hold.name, hold.site, hold.mode, System.nanoTime() - hold.acquiredAtNanos));
                return null;
            }
            tenure.broken = true;
            if (error == null) {
                reportLost(hold);
                return lost(hold.name);
            }
            return new LockServiceUnavailableException("Could not confirm that lock '" + hold.name
                    + "' was still held when the method finished: Redis failed (" + unwrap(error)
                    + "); the method may not have run alone.", unwrap(error));
        });
    }

    /** Gives a tenure back to Redis; the failure, or {@code null}. Never completes exceptionally. */
    private CompletableFuture<DistlockException> unlock(Tenure tenure, String name) {
        return tenure.unlock().handle((ignored, error) -> error == null ? null : releaseFailure(error, name));
    }

    /** What a failed release means for the caller: the lock was lost, or Redis could not be told. */
    private static DistlockException releaseFailure(Throwable error, String name) {
        Throwable cause = unwrap(error);
        if (cause instanceof IllegalMonitorStateException) {
            return lost(name);
        }
        return unavailable("release", name, cause);
    }

    /** Everyone queued for the key gave up after the lock was left for them: back to Redis with it. */
    private void releaseAbandoned(Tenure tenure) {
        String name = tenure.lock.getName();
        unlock(tenure, name).thenAccept(failure -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.DEBUG, "Releasing lock '" + name + "' nobody was left to take: "
                        + failure.getMessage());
            }
        });
    }

    private static LockLostException lost(String name) {
        return new LockLostException(name, "Lock '" + name + "' was no longer held when released: "
                + "its lease expired or Redis lost it, so the method may not have run alone. "
                + "Use the watchdog lease (leaseTime -1) or a lease longer than the work.");
    }

    /**
     * Stops the engine's thread. Locks still held are no longer watched and expire at the end of
     * their lease; later calls fail with {@link LockServiceUnavailableException}. Idempotent.
     */
    public void close() {
        leaseWatch.close();
    }

    /** The engine's lease watch; for tests in this package. */
    LeaseWatch leaseWatch() {
        return leaseWatch;
    }

    /** What the current thread's locked call holds. */
    public LockContext context() {
        return context;
    }

    private final LockContext context = new LockContext() {
        @Override
        public OptionalLong fencingToken() {
            LockOwner owner = (LockOwner) chain.get()[0];
            return token(owner == null ? 0 : owner.latestFencingToken());
        }

        @Override
        public OptionalLong fencingToken(String key) {
            LockOwner owner = (LockOwner) chain.get()[0];
            return token(owner == null ? 0 : owner.fencingToken(redisKey(LockMode.EXCLUSIVE, key)));
        }

        private OptionalLong token(long value) {
            return value == 0 ? OptionalLong.empty() : OptionalLong.of(value);
        }
    };

    /**
     * Makes every later fencing token of the exclusive lock on {@code key} larger than
     * {@code floor}, e.g. the largest token a store holds, after Redis lost its data and its
     * clock cannot be trusted (see {@link FencingTokens}).
     *
     * @return the token counter afterwards
     */
    public long raiseFencingFloor(String key, long floor) {
        return FencingTokens.raiseFloor(redis.client(), redisKey(LockMode.EXCLUSIVE, key), floor);
    }

    /** How many times a lock was passed from one caller to the next in this JVM without Redis. */
    public long handoffCount() {
        return handoffs.sum();
    }

    /**
     * Keys with a local queue right now; for tests and benchmarks, which check that no queue
     * outlives its use (must drop to 0 when nothing is locked).
     */
    public int localQueueCount() {
        return localQueues.size();
    }

    private void leaveLocalQueue(Hold hold) {
        LocalQueues.Entry turn = hold.turn;
        if (turn != null) {
            hold.turn = null;
            localQueues.leave(hold.name, turn);
        }
    }

    /** A listener must never change what the caller sees. */
    private static void notify(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "A LockListener failed; ignored", e);
        }
    }

    private static DistlockException firstWithSuppressed(DistlockException first, DistlockException next) {
        if (first == null) {
            return next;
        }
        if (next != null) {
            first.addSuppressed(next);
        }
        return first;
    }

    private static LockServiceUnavailableException unavailable(String action, String name, Throwable cause) {
        if (cause instanceof LockServiceUnavailableException known) {
            return known;
        }
        String consequence = action.equals("acquire")
                ? "the method did not run."
                : "the lock expires on its own at the end of its lease.";
        return new LockServiceUnavailableException(
                "Could not " + action + " lock '" + name + "': Redis failed (" + cause + "); " + consequence, cause);
    }

    /** Waits for a release without giving up on interruption: a lock must not be left behind. */
    private static DistlockException await(CompletableFuture<DistlockException> release) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return release.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    return new DistlockException("Release failed unexpectedly", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
