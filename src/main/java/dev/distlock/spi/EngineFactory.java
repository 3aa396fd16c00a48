package dev.distlock.spi;

import dev.distlock.DistributedLocks;
import dev.distlock.LeaseProof;
import dev.distlock.LocalHandoff;
import dev.distlock.LockListener;

import java.time.Duration;

/**
 * How {@link DistributedLocks.Builder} makes the engine over a backend: implemented once, by
 * distlock's engine, and found through {@link Implementations#of}, so that the API names no class
 * of the engine. Not for applications or backends to implement.
 */
public interface EngineFactory {

    /** Locks over {@code backend}, which they close when they are closed. */
    DistributedLocks build(LockBackend backend, Settings settings);

    /**
     * What an application may set on the builder.
     *
     * @param nodeName the name this server goes by in the store ({@link NodeName}); {@code null}: the host's
     */
    record Settings(String keyPrefix, Duration answerGrace, LockListener listener, LocalHandoff localHandoff,
                    boolean verifyBeforeCommit, LeaseProof leaseProof, String nodeName) {
    }
}
