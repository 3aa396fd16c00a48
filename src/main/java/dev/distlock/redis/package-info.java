/**
 * Redis as a lock backend and id store, through Redisson: found as {@code distlock.backend=redis}
 * (the default) through {@link dev.distlock.redis.RedisBackendProvider}, or used without CDI through
 * {@link dev.distlock.redis.RedisLocks} and {@link dev.distlock.redis.RedisIds}. Inside: the
 * settings ({@code distlock.redis.*}, TLS) and the client made from them, owner-checked acquisition
 * and release, lease queries in one round trip, fencing tokens seeded from Redis's clock, connection
 * breaks counted, leased worker ids and clock floors, the count of the day's serials, and the
 * removal of netty's per-thread state from the application's threads. {@code RedisLocks},
 * {@code RedisIds} and the provider are the API; the public classes besides them
 * ({@code RedisBackend}, {@code RedisClientSource}, {@code RedisWorkerLeases},
 * {@code RedisDayCounter}, {@code FencingTokens}) are distlock's own, public for its tests and
 * benchmarks, and may change in any release.
 */
package dev.distlock.redis;
