package dev.distlock.redis;

import org.redisson.api.RFuture;

/** A Redis lock that can say, in one round trip, whether a holder holds it and for how much longer. */
interface LeaseQuery {

    /** {@link #heldForAsync}'s answer for a holder that does not hold the lock. */
    long NOT_HELD = -3;

    /**
     * The lease left, in milliseconds, while {@code holderId} holds the lock; -1 when the lock has
     * no expiry; {@link #NOT_HELD} when the holder does not hold it. Asked of the master.
     */
    RFuture<Long> heldForAsync(long holderId);
}
