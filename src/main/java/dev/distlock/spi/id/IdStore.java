package dev.distlock.spi.id;

/**
 * Where id generators keep what several nodes must agree on: leased Snowflake worker ids, the
 * clock floor of a fixed worker id (the last millisecond it issued ids in), and the count of the
 * day's serials. Redis is one
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

    /**
     * The count of the day's serials of {@code name} ({@code 20261124-000042}), kept here under
     * {@code keyPrefix}. distlock's id engine leases every range the counter hands numbers out of
     * from a database, so that none is issued twice even when this store loses its data.
     *
     * @throws UnsupportedOperationException where this store cannot count them (Redis can)
     */
    default DayCounter dayCounter(String name, String keyPrefix) {
        throw new UnsupportedOperationException("daily serials are counted in Redis, not in " + this);
    }
}
