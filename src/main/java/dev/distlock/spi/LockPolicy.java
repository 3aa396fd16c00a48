package dev.distlock.spi;

import dev.distlock.LockMode;
import dev.distlock.LockDefinitionException;
import dev.distlock.OnTimeout;

/**
 * How a lock is taken: its mode, how long to wait, how long it is leased, what a timeout does,
 * and whether each acquisition gets a fencing token.
 *
 * @param site        where the policy comes from, for messages: {@code Shop.order(String,int)}
 * @param mode        exclusive, read or write
 * @param waitMillis  {@code -1} waits forever, {@code 0} tries once, otherwise the bound
 * @param leaseMillis {@code -1} holds until release with a watchdog, otherwise the fixed lease
 * @param onTimeout   fail or skip when the lock cannot be had in time
 * @param fenced      each acquisition gets a fencing token, larger than every earlier one
 * @param holdAtLeastMillis the engine gives the lock back no sooner than this after acquiring it,
 *                    even when the work returns earlier; {@code 0} releases at once (exclusive locks only)
 */
public record LockPolicy(String site, LockMode mode, long waitMillis, long leaseMillis, OnTimeout onTimeout,
                         boolean fenced, long holdAtLeastMillis) {

    public static final long WAIT_FOREVER = -1;
    public static final long WATCHDOG_LEASE = -1;

    public LockPolicy {
        if (site == null || mode == null || onTimeout == null) {
            throw new IllegalArgumentException("site, mode and onTimeout are required");
        }
        if (waitMillis < WAIT_FOREVER) {
            throw invalid(mode, site, "waitTime", "must be >= -1 (-1 waits forever, 0 tries once)", waitMillis);
        }
        if (leaseMillis == 0 || leaseMillis < WATCHDOG_LEASE) {
            throw invalid(mode, site, "leaseTime", "must be -1 (watchdog) or > 0", leaseMillis);
        }
        if (fenced && mode != LockMode.EXCLUSIVE) {
            throw invalid(mode, site, "fenced", "fencing tokens exist for exclusive locks (@Locked) only", true);
        }
        if (holdAtLeastMillis < 0) {
            throw invalid(mode, site, "holdAtLeast", "must be >= 0", holdAtLeastMillis);
        }
        if (holdAtLeastMillis > 0 && mode != LockMode.EXCLUSIVE) {
            throw invalid(mode, site, "holdAtLeast", "a minimum hold exists for exclusive locks (@Locked) only", holdAtLeastMillis);
        }
        if (holdAtLeastMillis > 0 && leaseMillis != WATCHDOG_LEASE && holdAtLeastMillis > leaseMillis) {
            throw invalid(mode, site, "holdAtLeast", "must not exceed leaseTime (" + leaseMillis
                    + " ms), after which the lock ends anyway", holdAtLeastMillis);
        }
    }

    /** A lock released as soon as its work is done. */
    public LockPolicy(String site, LockMode mode, long waitMillis, long leaseMillis, OnTimeout onTimeout,
                      boolean fenced) {
        this(site, mode, waitMillis, leaseMillis, onTimeout, fenced, 0);
    }

    /** A lock without fencing tokens. */
    public LockPolicy(String site, LockMode mode, long waitMillis, long leaseMillis, OnTimeout onTimeout) {
        this(site, mode, waitMillis, leaseMillis, onTimeout, false, 0);
    }

    /** Held until released, renewed while held, rather than for a fixed lease. */
    public boolean watchdog() {
        return leaseMillis == WATCHDOG_LEASE;
    }

    public boolean waitsForever() {
        return waitMillis == WAIT_FOREVER;
    }

    static LockDefinitionException invalid(LockMode mode, String site, String member, String rule, Object value) {
        return new LockDefinitionException(
                mode.annotation() + "." + member + " on " + site + ": " + rule + ", was " + value);
    }

    /** This policy with another wait, e.g. what is left of the caller's. */
    public LockPolicy withWaitMillis(long millis) {
        return new LockPolicy(site, mode, millis, leaseMillis, onTimeout, fenced, holdAtLeastMillis);
    }
}
