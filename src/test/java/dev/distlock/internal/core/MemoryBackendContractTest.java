package dev.distlock.internal.core;

import dev.distlock.internal.memory.InMemoryLockBackend;
import dev.distlock.testkit.backend.LockBackendContract;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.spi.StoredLock;

import java.util.List;

/** The contract against {@link InMemoryLockBackend}: engines sharing one store, as JVMs share one Redis. */
class MemoryBackendContractTest extends LockBackendContract {

    private final InMemoryLockBackend store = new InMemoryLockBackend();

    @Override
    protected LockBackend connect() {
        return new Shared(store);
    }

    @Override
    protected void lose(String name) {
        store.lose(name);
    }

    @Override
    protected boolean connectionsAreTold() {
        return false;
    }

    /** One engine's view of the shared store: closing an engine must not close the store. */
    private record Shared(InMemoryLockBackend store) implements LockBackend {
        @Override
        public String displayName() {
            return store.displayName();
        }

        @Override
        public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
            return store.acquire(name, policy, deadlineNanos);
        }

        @Override
        public long leaseMillis(LockPolicy policy) {
            return store.leaseMillis(policy);
        }

        @Override
        public List<StoredLock> inspect(String namePrefix, int limit) {
            return store.inspect(namePrefix, limit);
        }
    }
}
