package dev.distlock.internal.core;

import dev.distlock.memory.InMemoryLockBackend;
import dev.distlock.testkit.backend.LockBackendContract;

import dev.distlock.spi.LockBackend;


/** The contract against {@link InMemoryLockBackend}: engines sharing one store, as JVMs share one Redis. */
class MemoryBackendContractTest extends LockBackendContract {

    private final InMemoryLockBackend store = new InMemoryLockBackend();

    @Override
    protected LockBackend connect() {
        return store; // its close() leaves it open: engines share it
    }

    @Override
    protected void lose(String name) {
        store.lose(name);
    }

    @Override
    protected boolean connectionsAreTold() {
        return false;
    }
}
