package dev.distlock.redis;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.spi.StoredLock;
import dev.distlock.spi.id.IdStore;
import dev.distlock.spi.id.DayCounter;
import dev.distlock.spi.id.WorkerLeases;
import dev.distlock.DistlockException;
import dev.distlock.LockServiceUnavailableException;
import org.redisson.RedissonFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Locks in Redis through Redisson: exclusive locks (released by {@link ExclusiveLock}'s script),
 * Redisson's read/write locks, and its fenced lock with counters seeded by {@link FencingTokens}.
 * Each acquisition is known to Redisson by an id of its own in place of a thread id, so that any
 * thread may release it. Watchdog leases are renewed by Redisson.
 *
 * <p>An exclusive lease remembers what Redis said of it: granted at the acquisition, and its time
 * left at each check. Until that time (less the clock drift allowed for) it is known held, while the
 * client has lost no connection to Redis since (see {@link BackendLease#knownHeldFor}).
 */
public final class RedisBackend implements LockBackend, IdStore {

    /** How long a fenced lock's token counter is kept once the lock is released, unless configured: a day. */
    public static final Duration DEFAULT_FENCING_COUNTER_EXPIRY = Duration.ofDays(1);

    private final RedisClientSource redis;
    private final long answerGraceMillis;
    private final long counterExpiryMillis;
    private final RedisConnectionBreaks breaks;
    /** {@code true} but in the fencing tests' twins, which show what seeding prevents. */
    private final boolean seedsFencingTokens;
    private volatile Later later = (task, delay) -> { };
    /** Which server this is, in Redis ({@link RedisNodeNames}); null until the engine names it. */
    private volatile RedisNodeNames nodeNames;

    /**
     * @param redis             where the client comes from
     * @param answerGraceMillis how much longer than the wait Redis may take to answer before the
     *                          call fails with {@link LockServiceUnavailableException}
     */
    public RedisBackend(RedisClientSource redis, long answerGraceMillis) {
        this(redis, answerGraceMillis, DEFAULT_FENCING_COUNTER_EXPIRY.toMillis());
    }

    /**
     * @param counterExpiryMillis how long a fenced lock's token counter is kept after its lock was
     *                            released, so that names locked once do not stay in Redis for ever;
     *                            0 keeps them for ever (see {@link FencingTokens} for why a counter
     *                            made again later issues larger tokens)
     */
    public RedisBackend(RedisClientSource redis, long answerGraceMillis, long counterExpiryMillis) {
        this(redis, answerGraceMillis, counterExpiryMillis, new RedisConnectionBreaks(), true);
    }

    /** @param breaks what tells that the client lost a connection (a test may blind it, to show what it prevents) */
    RedisBackend(RedisClientSource redis, long answerGraceMillis, RedisConnectionBreaks breaks) {
        this(redis, answerGraceMillis, DEFAULT_FENCING_COUNTER_EXPIRY.toMillis(), breaks, true);
    }

    /**
     * A backend that leaves fenced locks' token counters as Redisson makes them, counting from 1
     * ({@link FencingTokens}): for the twins of the fencing tests only, which show what the seeding
     * prevents. Not a setting: no application may turn seeding off.
     */
    static RedisBackend withoutSeeding(RedisClientSource redis, long answerGraceMillis, long counterExpiryMillis) {
        return new RedisBackend(redis, answerGraceMillis, counterExpiryMillis, new RedisConnectionBreaks(), false);
    }

    private RedisBackend(RedisClientSource redis, long answerGraceMillis, long counterExpiryMillis, RedisConnectionBreaks breaks,
                         boolean seedsFencingTokens) {
        this.redis = redis;
        this.breaks = breaks;
        this.seedsFencingTokens = seedsFencingTokens;
        if (answerGraceMillis <= 0) {
            throw new IllegalArgumentException("answerGraceMillis must be > 0, was " + answerGraceMillis);
        }
        if (counterExpiryMillis < 0) {
            throw new IllegalArgumentException("counterExpiryMillis must be >= 0 (0: never), was " + counterExpiryMillis);
        }
        this.answerGraceMillis = answerGraceMillis;
        this.counterExpiryMillis = counterExpiryMillis;
    }

    @Override
    public String displayName() {
        return "Redis";
    }

    /** Netty's per-thread state (see {@link NettyThreadState}). */
    @Override
    public void releaseThreadState() {
        NettyThreadState.release();
    }

    @Override
    public void identify(String nodeName, String keyPrefix) {
        this.nodeNames = new RedisNodeNames(nodeName, keyPrefix);
    }

    @Override
    public void bind(Later later) {
        this.later = later;
        RedisNodeNames names = nodeNames;
        if (names != null) {
            names.bind(later);
        }
    }

    @Override
    public long leaseMillis(LockPolicy policy) {
        return policy.watchdog() ? redis.client().getConfig().getLockWatchdogTimeout() : policy.leaseMillis();
    }

    /** The lock hashes under {@code namePrefix} with their holders and time to live ({@link RedisLockListing}). */
    @Override
    public List<StoredLock> inspect(String namePrefix, int limit) {
        try {
            RedissonClient client = redis.client();
            return RedisLockListing.list(client, namePrefix, limit, answerGraceMillis,
                    ids -> named(client, ids));
        } catch (LockServiceUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockServiceUnavailableException("Could not list the locks under '" + namePrefix + "' in Redis: " + e, e);
        }
    }

    /** Deletes the lock's hash and wakes its waiters ({@link RedisForcedRelease}). */
    @Override
    public List<StoredLock.Holder> forceRelease(String name, boolean onlyIfFenced) {
        try {
            RedissonClient client = redis.client();
            return named(client, RedisForcedRelease.end(client, name, onlyIfFenced, answerGraceMillis));
        } catch (LockServiceUnavailableException | IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockServiceUnavailableException("Could not end lock '" + name + "' in Redis: " + e, e);
        }
    }

    @Override
    public long raiseFencingFloor(String name, long floor) {
        return FencingTokens.raiseFloor(redis.client(), name, floor);
    }

    /**
     * Redisson's holder ids, one per acquisition. Thread ids are small positive numbers; these start
     * far above them (2<sup>62</sup>, 19 digits), so a lock the application takes through the same
     * client with a plain {@code RLock.lock()} never looks like one of distlock's. Odd for a fenced
     * acquisition, even otherwise: Redis then shows which holders took a fencing token, for
     * {@link RedisForcedRelease}, at no cost. Static: two engines on one client must not share an id.
     */
    private static final AtomicLong HOLDER_IDS = new AtomicLong(1L << 61);

    static long holderId(boolean fenced) {
        return HOLDER_IDS.incrementAndGet() << 1 | (fenced ? 1 : 0);
    }

    private static LockServiceUnavailableException unavailable(String name, Throwable cause) {
        if (cause instanceof LockServiceUnavailableException known) {
            return known;
        }
        return new LockServiceUnavailableException("Could not acquire lock '" + name + "': Redis failed (" + cause
                + "); the method did not run.", cause);
    }

    /**
     * What {@code answer} completes with, waited for until {@code deadlineNanos}; a failure, or no
     * answer in time, is {@link LockServiceUnavailableException} naming what was {@code doing} and
     * the bound, {@code answerMillis}.
     */
    static <T> T await(CompletableFuture<T> answer, long deadlineNanos, long answerMillis, String doing) {
        try {
            return answer.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockServiceUnavailableException("Interrupted while " + doing, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new LockServiceUnavailableException("Redis did not answer within " + answerMillis + " ms while " + doing
                    + ": " + unwrap(e), e);
        }
    }

    static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException) && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** {@code ids} with the server of each, where its client wrote its name ({@link RedisNodeNames}). */
    private List<StoredLock.Holder> named(RedissonClient client, List<String> ids) {
        RedisNodeNames names = nodeNames;
        return names == null ? ids.stream().map(id -> StoredLock.Holder.of(id, null)).toList()
                : names.named(client, ids, answerGraceMillis);
    }

    /** Worker ids leased in this Redis ({@link RedisWorkerLeases}). */
    @Override
    public WorkerLeases leasedWorkers(String keyPrefix, long leaseMillis) {
        return RedisWorkerLeases.factory(redis, keyPrefix, leaseMillis);
    }

    /** A fixed worker id with its clock floor in this Redis ({@link RedisFixedWorker}). */
    @Override
    public WorkerLeases fixedWorker(String keyPrefix, long workerId) {
        return RedisFixedWorker.factory(redis, keyPrefix, workerId);
    }

    /** The count of the day's serials in this Redis ({@link RedisDayCounter}). */
    @Override
    public DayCounter dayCounter(String name, String keyPrefix) {
        return new RedisDayCounter(name, redis::client, keyPrefix);
    }

    /** The client, made on first need where distlock makes it. */
    RedissonClient client() {
        return redis.client();
    }

    /** Where distlock made the client: whether Redis answers a round trip in time. Otherwise nothing is known here. */
    @Override
    public Optional<String> problem() {
        return redis instanceof RedisConnection connection ? connection.problem() : Optional.empty();
    }

    /** Also shuts down a client distlock made; the application's own stays open. */
    @Override
    public void close() {
        RedisNodeNames names = nodeNames;
        if (names != null) {
            names.close(); // waits a moment for the name's removal, before a client distlock made is shut down
        }
        breaks.close();
        if (redis instanceof RedisConnection connection) {
            connection.close();
        }
    }

    @Override
    public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
        RedissonClient client = redis.client();
        RedisNodeNames names = nodeNames;
        if (names != null) {
            names.taking(client);
        }
        RLock lock = lockFor(client, name, policy);
        long redisId = holderId(policy.fenced());
        // Redis sets the lease when it grants the lock, which is after this: counting from here is safe.
        long askedAtNanos = System.nanoTime();
        long breaksBefore = breaks.count(client);
        // Answers TRUE/FALSE (tryLock), the fencing token or null (fenced), or 0 (waits forever):
        // read with tokenOf, so the common case waits on Redisson's own future, with no stage added.
        CompletableFuture<?> attempt;
        long remainingMillis = policy.waitsForever() ? -1
                : Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
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
            throw unavailable(name, e);
        }
        long answerMillis = remainingMillis + answerGraceMillis;
        try {
            Long token = tokenOf(policy.waitsForever() ? attempt.get() : attempt.get(answerMillis, TimeUnit.MILLISECONDS));
            if (token == null) {
                if (remainingMillis > 0) {
                    confirmRedisAnswers(lock, name);
                }
                return null;
            }
            if (policy.fenced() && token < FencingTokens.SEEDED && seedsFencingTokens) {
                token = seedFencingTokens(client, lock, name, redisId);
            }
            RedisLease lease = new RedisLease(client, lock, redisId, policy.watchdog(), token, breaks);
            if (lock instanceof LeaseQuery) {
                lease.learn(askedAtNanos, breaksBefore, leaseOf(client, policy));
            }
            return lease;
        } catch (InterruptedException e) {
            releaseIfLateAcquired(attempt, lock, redisId, leaseOf(client, policy));
            throw e;
        } catch (TimeoutException e) {
            releaseIfLateAcquired(attempt, lock, redisId, leaseOf(client, policy));
            throw new LockServiceUnavailableException("Redis did not answer within " + answerMillis
                    + " ms while acquiring lock '" + name + "'; the method did not run.", e);
        } catch (ExecutionException e) {
            // The client gave up; Redis may still run the acquisition when it catches up.
            sweep(lock, redisId, leaseOf(client, policy));
            throw unavailable(name, unwrap(e));
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
                sweep(lock, redisId, leaseMillis);
            }
        });
    }

    /**
     * An acquisition failed in the client (Redis stalled past the client's timeout, the caller was
     * interrupted), but its script may still be waiting in Redis and run later, granting the lock
     * to an id nobody uses: such a lock would block everyone until its lease ran out. So the id is
     * released again a few times, at growing intervals, until its lease is over. The id is used by
     * no one else, so releasing it can never free another holder's lock.
     */
    void sweep(RLock lock, long redisId, long leaseMillis) {
        sweep(lock, redisId, Math.max(1, leaseMillis) + 1000, 250);
    }

    private void sweep(RLock lock, long redisId, long remainingMillis, long delayMillis) {
        if (remainingMillis <= 0) {
            return;
        }
        later.run(() -> lock.unlockAsync(redisId).whenComplete((released, error) -> {
            if (error == null) {
                return; // it had been granted, and is free again
            }
            sweep(lock, redisId, remainingMillis - delayMillis, Math.min(delayMillis * 2, 8000));
        }), TimeUnit.MILLISECONDS.toNanos(delayMillis));
    }

    /** An acquisition's answer: {@code null} when the wait ran out, 0 when acquired, the fencing token if fenced. */
    private static Long tokenOf(Object answer) {
        if (answer instanceof Boolean acquired) {
            return acquired ? 0L : null;
        }
        return (Long) answer;
    }

    private RLock lockFor(RedissonClient client, String name, LockPolicy policy) {
        if (policy.fenced()) {
            RLock fenced = ExclusiveLock.fenced(client, name, counterExpiryMillis);
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
}
