package dev.distlock.redis;

import dev.distlock.spi.LockBackend.Later;
import org.redisson.api.RLock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The give-back of a Redis acquisition the caller never had: one given up on may still be granted,
 * now or when a stalled Redis catches up, to an id nobody uses, and such a lock would block everyone
 * until its lease ran out. Its own class because it outlives the acquisition: it keeps releasing the
 * id on the backend's timer, after the caller has long been told.
 */
final class LateGrants {

    private volatile Later later = (task, delay) -> { };

    void bind(Later later) {
        this.later = later;
    }

    /**
     * A wait we gave up on may still succeed in Redis: give such a lock straight back; and if the
     * client gives up too, Redis may still run it later, so the id is swept.
     */
    void releaseIfLateAcquired(CompletableFuture<?> attempt, RLock lock, long redisId, long leaseMillis) {
        attempt.whenComplete((answer, error) -> {
            if (error == null && RedisAcquisitions.tokenOf(answer) != null) {
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
}
