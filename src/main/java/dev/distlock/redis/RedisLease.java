package dev.distlock.redis;

import dev.distlock.spi.BackendLease;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition in Redis, known to Redisson by {@code redisId}, and what Redis said last of its
 * lease. Redisson's "not held by this id" ({@link IllegalMonitorStateException}) is answered here
 * as {@code false}, the SPI's word for it.
 */
final class RedisLease implements BackendLease {
    private final RedissonClient client;
    private final RLock lock;
    private final long redisId;
    private final boolean renewed;
    private final long fencingToken;
    private final RedisConnectionBreaks breaks;
    /** Guarded by this for writes: the latest knowledge; {@code null} while there is none. */
    private volatile Known known;

    RedisLease(RedissonClient client, RLock lock, long redisId, boolean renewed, long fencingToken,
               RedisConnectionBreaks breaks) {
        this.client = client;
        this.breaks = breaks;
        this.lock = lock;
        this.redisId = redisId;
        this.renewed = renewed;
        this.fencingToken = fencingToken;
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public boolean renewed() {
        return renewed;
    }

    @Override
    public boolean knownHeldFor(long nanos) {
        Known last = known;
        return last != null && last.breaks == breaks.count(client) && last.untilNanos - System.nanoTime() >= nanos;
    }

    /**
     * Redis answered, to a question sent at {@code askedAtNanos}, that the lease had
     * {@code leftMillis} to run: it is known held until then, as long as no connection is lost
     * after {@code breaksBefore}.
     */
    void learn(long askedAtNanos, long breaksBefore, long leftMillis) {
        if (breaksBefore == RedisConnectionBreaks.UNSEEN || leftMillis < 0) {
            return;
        }
        long until = askedAtNanos + TimeUnit.MILLISECONDS.toNanos(leftMillis - leftMillis / 100) - DRIFT_NANOS;
        synchronized (this) {
            Known last = known;
            if (last == null || last.breaks < breaksBefore || (last.breaks == breaksBefore && until - last.untilNanos > 0)) {
                known = new Known(until, breaksBefore);
            }
        }
    }

    @Override
    public CompletableFuture<Boolean> isHeld() {
        try {
            if (lock instanceof LeaseQuery query) {
                long askedAtNanos = System.nanoTime();
                long breaksBefore = breaks.count(client);
                return query.heldForAsync(redisId).toCompletableFuture().thenApply(left -> {
                    if (left == LeaseQuery.NOT_HELD) {
                        return false;
                    }
                    learn(askedAtNanos, breaksBefore, left);
                    return true;
                });
            }
            return lock.isHeldByThreadAsync(redisId).toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> release() {
        CompletableFuture<Void> unlocking;
        try {
            unlocking = lock.unlockAsync(redisId).toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Boolean> released = new CompletableFuture<>();
        unlocking.whenComplete((ignored, error) -> {
            Throwable cause = error == null ? null : RedisBackend.unwrap(error);
            if (cause == null) {
                released.complete(true);
            } else if (cause instanceof IllegalMonitorStateException) {
                released.complete(false); // Redisson's word for "not held by this id"
            } else {
                released.completeExceptionally(cause);
            }
        });
        return released;
    }

    /** Until when ({@link System#nanoTime()}) a lease is known held, while no more than {@code breaks} connections were lost. */
    private record Known(long untilNanos, long breaks) {
    }

    /**
     * Taken off every lease Redis reports before it counts as known: 1 % of the lease for the two
     * clocks running at different rates, and this much more for the time Redis takes to set it.
     */
    private static final long DRIFT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
}
