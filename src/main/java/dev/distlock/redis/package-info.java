/**
 * The Redis lock backend, through Redisson: owner-checked acquisition and release, lease queries
 * in one round trip, fencing tokens seeded from Redis's clock, connection breaks counted.
 * <p><b>Internal.</b> Nothing here is API; it may change in any release. Use
 * {@link dev.distlock.DistributedLocks#builder(org.redisson.api.RedissonClient)} or the annotations.
 */
package dev.distlock.redis;
