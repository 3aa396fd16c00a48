package dev.distlock.redis;

import dev.distlock.DistlockException;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import org.redisson.RedissonFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisTimeoutException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link RedisBackend}'s acquisitions: which Redisson lock a policy takes, the one call that
 * takes it under an id of the acquisition's own, and what follows from Redis's answer (the fencing
 * counter seeded, a late grant given back, a wait that ran out told from a Redis that died). Apart
 * from the backend, which only lists, ends and answers for the store, because this is the one path
 * on which a caller waits.
 */
final class RedisAcquisitions {

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

    private final long answerGraceMillis;
    private final long counterExpiryMillis;
    private final RedisConnectionBreaks breaks;
    /** {@code true} but in the fencing tests' twins, which show what seeding prevents. */
    private final boolean seedsFencingTokens;
    private final LateGrants lateGrants;

    RedisAcquisitions(long answerGraceMillis, long counterExpiryMillis, RedisConnectionBreaks breaks, boolean seedsFencingTokens,
                      LateGrants lateGrants) {
        this.answerGraceMillis = answerGraceMillis;
        this.counterExpiryMillis = counterExpiryMillis;
        this.breaks = breaks;
        this.seedsFencingTokens = seedsFencingTokens;
        this.lateGrants = lateGrants;
    }

    /** Takes lock {@code name} for {@code policy} through {@code client}: the lease, or {@code null} when the wait ran out. */
    BackendLease acquire(RedissonClient client, String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
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
            lateGrants.releaseIfLateAcquired(attempt, lock, redisId, leaseOf(client, policy));
            throw e;
        } catch (TimeoutException e) {
            lateGrants.releaseIfLateAcquired(attempt, lock, redisId, leaseOf(client, policy));
            throw new LockServiceUnavailableException("Redis did not answer within " + answerMillis
                    + " ms while acquiring lock '" + name + "'; the method did not run.", e);
        } catch (ExecutionException e) {
            // The client gave up; Redis may still run the acquisition when it catches up.
            lateGrants.sweep(lock, redisId, leaseOf(client, policy));
            Throwable cause = RedisBackend.unwrap(e);
            if (remainingMillis > 0 && spentSubscribing(cause)) {
                confirmRedisAnswers(lock, name);
                return null;
            }
            throw unavailable(name, cause);
        }
    }

    /**
     * Whether the wait ran out while Redisson was still subscribing to the lock's release messages:
     * it found the lock held, and its subscription (on a busy machine, slower than a short wait)
     * did not come in time. Its synchronous {@code tryLock} answers "not acquired" then; its
     * asynchronous one fails with this, which is a wait that ran out, not a Redis that failed.
     */
    private static boolean spentSubscribing(Throwable cause) {
        return cause instanceof RedisTimeoutException && cause.getMessage() != null
                && cause.getMessage().startsWith("Unable to acquire subscription lock");
    }

    private static LockServiceUnavailableException unavailable(String name, Throwable cause) {
        if (cause instanceof LockServiceUnavailableException known) {
            return known;
        }
        return new LockServiceUnavailableException("Could not acquire lock '" + name + "': Redis failed (" + cause
                + "); the method did not run.", cause);
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
            Throwable cause = e instanceof ExecutionException ? RedisBackend.unwrap(e) : e;
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

    /** An acquisition's answer: {@code null} when the wait ran out, 0 when acquired, the fencing token if fenced. */
    static Long tokenOf(Object answer) {
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
