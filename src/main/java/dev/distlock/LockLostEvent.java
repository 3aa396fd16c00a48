package dev.distlock;

import dev.distlock.core.LockMode;

import java.time.Instant;

/**
 * A locked call ran, at least in part, without its lock: the lease expired or Redis lost the lock
 * (a restart without data, a failover). Fired as an asynchronous CDI event, once per call that
 * learns it — observe it with {@code @ObservesAsync LockLostEvent lost}. The call itself gets a
 * {@link LockLostException}, and a transaction that held the lock is rolled back when the loss is
 * found before its commit.
 *
 * @param key  the Redis key of the lock, e.g. {@code distlock:lock:stock:A-1}
 * @param mode exclusive, read or write
 * @param at   when the loss was found
 */
public record LockLostEvent(String key, LockMode mode, Instant at) {
}
