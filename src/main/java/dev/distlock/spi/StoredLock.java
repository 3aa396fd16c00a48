package dev.distlock.spi;

import dev.distlock.LockMode;

import java.util.List;

/**
 * A lock as its store keeps it, for {@link LockBackend#inspect}: read from the store when asked, never
 * kept on the lock path.
 *
 * @param name            the lock's name, as the engine gave it to {@link LockBackend#acquire}
 * @param mode            {@link LockMode#READ} when readers hold it; otherwise {@link LockMode#EXCLUSIVE}
 *                        or {@link LockMode#WRITE}, either (the engine tells an exclusive lock from a
 *                        write lock by the name)
 * @param holders         the store's ids of the acquisitions holding it, in the store's own form
 * @param heldByThisClient whether one of them was made through this backend's client (this JVM)
 * @param leaseLeftMillis how long the store keeps it without renewal; {@link #NO_EXPIRY} when it
 *                        does not expire or the store does not say
 */
public record StoredLock(String name, LockMode mode, List<String> holders, boolean heldByThisClient, long leaseLeftMillis) {

    /** The lock has no expiry in the store, or the store does not say. */
    public static final long NO_EXPIRY = -1;

    public StoredLock {
        holders = List.copyOf(holders);
    }
}
