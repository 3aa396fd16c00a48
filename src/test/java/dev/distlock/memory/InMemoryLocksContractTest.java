package dev.distlock.memory;

import dev.distlock.DistributedLocks;
import dev.distlock.spi.LockBackend;
import dev.distlock.testkit.backend.LockBackendContract;

/**
 * The contract through {@link InMemoryLocks#builder()}, as an application's test uses it: every
 * engine on the JVM's one shared store, as servers on one Redis.
 */
class InMemoryLocksContractTest extends LockBackendContract {

    private final InMemoryLockBackend shared = TestsOnly.store(false, "test", getClass().getClassLoader());

    @Override
    protected DistributedLocks.Builder builder() {
        return InMemoryLocks.builder();
    }

    @Override
    protected LockBackend connect() {
        return shared; // for the transaction tests, which make their engines themselves
    }

    @Override
    protected void lose(String name) {
        shared.lose(name);
    }

    @Override
    protected boolean connectionsAreTold() {
        return false;
    }
}
