package dev.distlock.internal.core;

import dev.distlock.LockMode;

/**
 * The name a lock is kept under in its backend: the prefix, the namespace of its mode, the key.
 * Exclusive and read-write locks are different structures in every backend, so they never share a
 * name. Tools and tests that look into a store use this rather than spelling the scheme again.
 */
public final class LockNames {

    private LockNames() {
    }

    /** {@code prefix:lock:key} for exclusive locks, {@code prefix:rw:key} for read and write locks. */
    public static String of(String prefix, LockMode mode, String key) {
        return namespace(prefix, mode).concat(key);
    }

    /** What every name of {@code mode} under {@code prefix} starts with. */
    static String namespace(String prefix, LockMode mode) {
        return KeyEncoding.checkPrefix(prefix) + (mode == LockMode.EXCLUSIVE ? ":lock:" : ":rw:");
    }
}
