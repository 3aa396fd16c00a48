package dev.distlock.internal.core;

import dev.distlock.memory.InMemoryLockBackend;
import dev.distlock.testkit.backend.LockBackendContract;
import dev.distlock.testkit.backend.LostGrantAnswer;
import org.junit.jupiter.api.Assumptions;

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
