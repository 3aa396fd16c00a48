package dev.distlock.spi.id;

import dev.distlock.id.Ids;

import java.time.Duration;
import java.time.ZoneId;

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
     * Date + the day's serial of {@code name} ({@code 20261124-000042}), counted here under
     * {@code keyPrefix}, every number within a range leased from {@code ranges}, so that none is
     * issued twice even when this store loses its data.
     *
     * @param zone    whose midnight starts a new day
     * @param format  how a number is written ({@link Ids#DEFAULT_SERIAL_FORMAT})
     * @param step    how many numbers one lease of {@code ranges} takes
     * @param timeout how long {@code next()} waits for this store or a new range
     * @throws IllegalArgumentException      for a name, format, step or timeout the generator refuses
     * @throws UnsupportedOperationException where this store cannot count them (Redis can)
     */
    default Ids.Serials dailySerials(String name, String keyPrefix, SegmentStore ranges, ZoneId zone, String format, long step,
                                     Duration timeout) {
        throw new UnsupportedOperationException("daily serials are counted in Redis, not in " + this);
    }
}
