package dev.distlock.memory;

import dev.distlock.DistributedLocks;


/**
 * Locks in this JVM's memory, for an application's tests without Redis: the same engine and
 * semantics (exclusive, read and write locks, waits and timeouts, leases, fencing tokens that only
 * grow, transactions), excluding callers in this JVM only. Every {@code DistributedLocks} built
 * here, and every CDI container of the JVM configured with {@code distlock.backend=in-memory},
 * shares one store, as servers share one Redis.
 *
 * <pre>{@code
 * DistributedLocks locks = InMemoryLocks.builder().build();
 * }</pre>
 *
 * <p>Outside a test (no JUnit or TestNG on the class path) it refuses to start, since an
 * application of two servers would run every locked method on both at once; set the system
 * property (or, with CDI, the MicroProfile Config key) {@value #ALLOWED} to {@code true} if the
 * application really runs as one JVM.
 */
public final class InMemoryLocks {

    /** Allows in-memory locks outside tests. */
    public static final String ALLOWED = TestsOnly.ALLOWED;

    private InMemoryLocks() {
    }

    /**
     * A builder of locks in this JVM's shared in-memory store.
     *
     * @throws IllegalStateException outside a test, unless {@value #ALLOWED} is {@code true}
     */
    public static DistributedLocks.Builder builder() {
        return DistributedLocks.builder(TestsOnly.store(Boolean.getBoolean(ALLOWED), "InMemoryLocks.builder()",
                TestsOnly.applicationLoader()));
    }
}
