package dev.distlock.spi.id;

/**
 * Where id generators keep what several nodes must agree on: leased Snowflake worker ids, and the
 * clock floor of a fixed worker id (the last millisecond it issued ids in). Redis is one
 * ({@code RedisIds.store(redisson)}); with CDI, distlock asks the lock backend first and uses Redis
 * when the backend is not one.
 */
public interface IdStore {

    /**
     * Worker ids leased here, under {@code keyPrefix}: two live generators of one name never share
     * one, and a lease not renewed for {@code leaseMillis} ends.
     */
    WorkerLeases leasedWorkers(String keyPrefix, long leaseMillis);

    /**
     * The fixed {@code workerId} of each generator, with its clock floor kept here under
     * {@code keyPrefix}: a restart whose clock is behind the floor waits or is refused.
     */
    WorkerLeases fixedWorker(String keyPrefix, long workerId);
}
