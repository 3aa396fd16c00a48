package dev.distlock.memory;

import dev.distlock.LockMode;
import dev.distlock.spi.BackendLease;

import java.util.concurrent.CompletableFuture;

/**
 * One acquisition in an {@link InMemoryLockBackend}. Only what the acquisition was: whether it
 * still holds, and its release, are the store's to answer, as a real store's would be.
 */
final class MemoryLease implements BackendLease {

    private final InMemoryLockBackend store;
    final String name;
    final LockMode mode;
    /** The acquisition's number in the store, its id in {@link InMemoryLockBackend#inspect}. */
    final long id;
    private final boolean renewed;
    final long token;
    /** {@link Long#MAX_VALUE} for a renewed lease. */
    final long endsAtNanos;
    /** The server whose engine took it; null for none. */
    final String node;

    MemoryLease(InMemoryLockBackend store, String name, LockMode mode, long id, boolean renewed, long token, long endsAtNanos,
                String node) {
        this.store = store;
        this.name = name;
        this.mode = mode;
        this.id = id;
        this.renewed = renewed;
        this.token = token;
        this.endsAtNanos = endsAtNanos;
        this.node = node;
    }

    @Override
    public long fencingToken() {
        return token;
    }

    @Override
    public boolean renewed() {
        return renewed;
    }

    @Override
    public CompletableFuture<Boolean> isHeld() {
        return store.isHeld(this);
    }

    @Override
    public CompletableFuture<Boolean> release() {
        return store.release(this);
    }
}
