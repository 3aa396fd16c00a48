package dev.distlock;


import java.time.Instant;

/**
 * A lock was lost while held: the watchdog could not renew it, its lease expired, or Redis lost it
 * (a restart without data, a failover). Fired as an asynchronous CDI event, once per lost lock, as
 * soon as it is noticed — while the method still runs (checked every third of the lease), before
 * a transaction holding it commits, or at release. Observe it with
 * {@code @ObservesAsync LockLostEvent lost}. The call itself gets a {@link LockLostException} at
 * release, and a transaction that held the lock is rolled back when the loss is found before its
 * commit.
 *
 * @param key  the Redis key of the lock, e.g. {@code distlock:lock:stock:A-1}
 * @param mode exclusive, read or write
 * @param at   when the loss was found
 */
public record LockLostEvent(String key, LockMode mode, Instant at) {
}
