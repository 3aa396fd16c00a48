package dev.distlock.internal.core;

import dev.distlock.ForcedRelease;
import dev.distlock.LockInfo;
import dev.distlock.LockMode;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.StoredLock;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What an operator does to the locks rather than through them: look at them
 * ({@link dev.distlock.DistributedLocks#inspect}), end them ({@link dev.distlock.DistributedLocks#forceRelease})
 * and raise their fencing floor. Apart from the call path: none of it takes a lock, and the call
 * path knows nothing of it beyond the lease watch that a forced release wakes.
 */
public final class Administration {

    private static final System.Logger LOG = System.getLogger(Administration.class.getName());

    private final LockBackend backend;
    private final LeaseWatch leaseWatch;
    private final Acquisitions acquisitions;
    private final Inspection inspection;

    Administration(LockBackend backend, LeaseWatch leaseWatch, Acquisitions acquisitions, LocalQueues localQueues,
                   String keyPrefix) {
        this.backend = backend;
        this.leaseWatch = leaseWatch;
        this.acquisitions = acquisitions;
        this.inspection = new Inspection(backend, leaseWatch, localQueues, keyPrefix);
    }

    /** See {@link dev.distlock.DistributedLocks#inspect(String, int)}. */
    public List<LockInfo> inspect(String keyPrefix, int limit) {
        return inspection.inspect(Objects.requireNonNull(keyPrefix, "keyPrefix"), limit);
    }

    /**
     * See {@link dev.distlock.DistributedLocks#forceRelease}: the key's exclusive lock, then its
     * read-write lock, each ended in the backend; holders in this JVM are broken at once, so nothing
     * here passes the lock on, and checked at the next tick rather than at their next round, so they are told.
     */
    public List<String> forceRelease(String key, ForcedRelease how) {
        Objects.requireNonNull(how, "how");
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("the key of the lock to end must not be null or blank, was '" + key + "'");
        }
        List<String> ended = new ArrayList<>();
        for (LockMode mode : new LockMode[] {LockMode.EXCLUSIVE, LockMode.WRITE}) {
            String name = acquisitions.name(mode, key);
            List<StoredLock.Holder> holders;
            try {
                holders = backend.forceRelease(name, how.fencedOnly());
            } catch (IllegalStateException refused) {
                LOG.log(System.Logger.Level.WARNING, "distlock: forced release of lock '" + key + "' in " + backend.displayName()
                        + " refused: " + refused.getMessage() + (ended.isEmpty() ? "" : "; already ended: " + ended));
                throw refused;
            }
            if (!holders.isEmpty()) {
                holders.forEach(holder -> ended.add(holder.id()));
                leaseWatch.endedInStore(name);
                LOG.log(System.Logger.Level.WARNING, "distlock: forced release of " + (mode == LockMode.EXCLUSIVE ? "" : "read-write ")
                        + "lock '" + key + "' in " + backend.displayName() + ": ended " + holders
                        + how.reason().map(reason -> ", acknowledged: " + reason).orElse(", held with fencing tokens"));
            }
        }
        return ended;
    }

    /**
     * Makes every later fencing token of the exclusive lock on {@code key} larger than
     * {@code floor}, e.g. the largest token a store holds, after Redis lost its data and its
     * clock cannot be trusted (see {@link LockBackend#raiseFencingFloor}).
     *
     * @return the token counter afterwards
     */
    public long raiseFencingFloor(String key, long floor) {
        return backend.raiseFencingFloor(acquisitions.name(LockMode.EXCLUSIVE, key), floor);
    }
}
