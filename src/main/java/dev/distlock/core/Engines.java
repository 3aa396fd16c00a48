package dev.distlock.core;

import dev.distlock.DistributedLocks;

import java.util.Objects;

/**
 * How distlock's own layers (the CDI integration, tests) reach what {@link DistributedLocks} keeps
 * out of its public API: the engine behind it and the transaction bridge. Internal: not for
 * applications, and free to change.
 */
public final class Engines {

    /** What {@link DistributedLocks} hands over, once, when its class is initialized. */
    public interface Access {
        DistributedLocks wrap(LockExecutor executor);

        LockExecutor unwrap(DistributedLocks locks);

        DistributedLocks.Builder transactions(DistributedLocks.Builder builder, TransactionBridge bridge);

        DistributedLocks.Builder builder(LockBackend backend);
    }

    private static volatile Access access;

    private Engines() {
    }

    /** Called by {@link DistributedLocks} only; the first call wins. */
    public static synchronized void install(Access given) {
        if (access == null) {
            access = Objects.requireNonNull(given, "access");
        }
    }

    /** Locks in front of an engine made here. */
    public static DistributedLocks wrap(LockExecutor executor) {
        return access().wrap(Objects.requireNonNull(executor, "executor"));
    }

    /** The engine behind these locks. */
    public static LockExecutor executor(DistributedLocks locks) {
        return access().unwrap(Objects.requireNonNull(locks, "locks"));
    }

    /** Lets locks taken inside a transaction be released when it completes. */
    public static DistributedLocks.Builder transactions(DistributedLocks.Builder builder, TransactionBridge bridge) {
        return access().transactions(builder, Objects.requireNonNull(bridge, "bridge"));
    }

    /** Locks kept in {@code backend} rather than Redis; closed with the locks. */
    public static DistributedLocks.Builder builder(LockBackend backend) {
        return access().builder(Objects.requireNonNull(backend, "backend"));
    }

    private static Access access() {
        Access current = access;
        if (current == null) {
            try {
                Class.forName(DistributedLocks.class.getName(), true, DistributedLocks.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            current = access;
        }
        return current;
    }
}
