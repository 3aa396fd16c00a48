package dev.distlock.memory;

import dev.distlock.DistributedLocks;
import dev.distlock.spi.LockBackend;
import dev.distlock.testkit.backend.LockBackendContract;
import dev.distlock.testkit.backend.LostGrantAnswer;
import org.junit.jupiter.api.Assumptions;

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

    /** Skipped: the store grants and answers in one call in the caller's JVM, with no connection between them to break. */
    @Override
    protected LostGrantAnswer connectLosingTheAnswerToTheNextGrantOf(String name) {
        return Assumptions.abort("an in-memory store grants and answers in one call in the caller's JVM: no connection "
                + "lies between the grant and its answer to lose it");
    }

    @Override
    protected boolean connectionsAreTold() {
        return false;
    }
}
