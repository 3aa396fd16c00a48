package dev.distlock.internal.core;

import dev.distlock.memory.InMemoryLockBackend;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockPolicy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-memory backend, counting how often each lease it granted was given back: the store
 * itself only answers {@code false} to a second release, which the engine may log and no caller
 * see (a tenure nobody was left to take goes back that way).
 */
final class ReleaseCountingBackend implements LockBackend {

    private final InMemoryLockBackend store = new InMemoryLockBackend();
    /** Guarded by this. */
    private final List<CountedLease> granted = new ArrayList<>();

    @Override
    public String displayName() {
        return store.displayName();
    }

    @Override
    public long leaseMillis(LockPolicy policy) {
        return store.leaseMillis(policy);
    }

    @Override
    public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
        BackendLease lease = store.acquire(name, policy, deadlineNanos);
        if (lease == null) {
            return null;
        }
        CountedLease counted = new CountedLease(lease);
        synchronized (this) {
            granted.add(counted);
        }
        return counted;
    }

    /** A violation of "every lease granted was given back exactly once", or {@code null}. */
    synchronized String releaseProblem() {
        for (int i = 0; i < granted.size(); i++) {
            int releases = granted.get(i).releases.get();
            if (releases != 1) {
                return "lease " + (i + 1) + " of " + granted.size() + " was given back " + releases + " times, not once";
            }
        }
        return store.held().isEmpty() ? null : "the store still holds " + store.held();
    }

    private static final class CountedLease implements BackendLease {
        private final BackendLease lease;
        private final AtomicInteger releases = new AtomicInteger();

        CountedLease(BackendLease lease) {
            this.lease = lease;
        }

        @Override
        public long fencingToken() {
            return lease.fencingToken();
        }

        @Override
        public boolean renewed() {
            return lease.renewed();
        }

        @Override
        public CompletableFuture<Boolean> isHeld() {
            return lease.isHeld();
        }

        @Override
        public CompletableFuture<Boolean> release() {
            releases.incrementAndGet();
            return lease.release();
        }
    }
}
