package dev.distlock.core;

/** The contract against {@link MemoryBackend}: engines sharing one store, as JVMs share one Redis. */
class MemoryBackendContractTest extends LockBackendContract {

    private final MemoryBackend store = new MemoryBackend();

    @Override
    protected LockBackend connect() {
        return new Shared(store);
    }

    @Override
    protected void lose(String name) {
        store.lose(name);
    }

    /** One engine's view of the shared store: closing an engine must not close the store. */
    private record Shared(MemoryBackend store) implements LockBackend {
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
    }
}
