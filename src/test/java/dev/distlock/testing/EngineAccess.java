package dev.distlock.testing;

import dev.distlock.DistributedLocks;
import dev.distlock.LockMode;
import dev.distlock.internal.core.EngineLocks;
import dev.distlock.internal.core.LockExecutor;

/** What tests see of the engine behind {@link DistributedLocks}: the names locks have in the store, its counters. */
public final class EngineAccess {

    private EngineAccess() {
    }

    /** The engine behind locks made by distlock's builders. */
    public static LockExecutor executor(DistributedLocks locks) {
        return ((EngineLocks) locks).executor();
    }

    /** The name {@code key} is locked under in the store: exclusive, or read-write when {@code readWrite}. */
    public static String lockName(DistributedLocks locks, String key, boolean readWrite) {
        return executor(locks).lockName(readWrite ? LockMode.WRITE : LockMode.EXCLUSIVE, key);
    }
}
