package dev.distlock.redis;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.spi.StoredLock;
import dev.distlock.spi.id.IdStore;
import dev.distlock.spi.id.DayCounter;
import dev.distlock.spi.id.WorkerLeases;
import dev.distlock.LockServiceUnavailableException;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Locks in Redis through Redisson: exclusive locks (released by {@link ExclusiveLock}'s script),
 * Redisson's read/write locks, and its fenced lock with counters seeded by {@link FencingTokens}.
 * Each acquisition is known to Redisson by an id of its own in place of a thread id, so that any
 * thread may release it ({@link RedisAcquisitions}). Watchdog leases are renewed by Redisson.
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
    private final RedisConnectionBreaks breaks;
    private final LateGrants lateGrants = new LateGrants();
    private final RedisAcquisitions acquisitions;
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
        if (answerGraceMillis <= 0) {
            throw new IllegalArgumentException("answerGraceMillis must be > 0, was " + answerGraceMillis);
        }
        if (counterExpiryMillis < 0) {
            throw new IllegalArgumentException("counterExpiryMillis must be >= 0 (0: never), was " + counterExpiryMillis);
        }
        this.answerGraceMillis = answerGraceMillis;
        this.acquisitions = new RedisAcquisitions(answerGraceMillis, counterExpiryMillis, breaks, seedsFencingTokens, lateGrants);
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
        lateGrants.bind(later);
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
        return acquisitions.acquire(client, name, policy, deadlineNanos);
    }
}
