package dev.distlock.internal.core;

import dev.distlock.DistributedLocks;
import dev.distlock.spi.EngineFactory;
import dev.distlock.spi.LockBackend;

/** The engine behind {@link DistributedLocks.Builder}, listed in META-INF/services. */
public final class CoreEngineFactory implements EngineFactory {

    @Override
    public DistributedLocks build(LockBackend backend, Settings settings) {
        EngineBuilder engine = new EngineBuilder();
        if (settings.nodeName() != null) {
            engine.nodeName(settings.nodeName());
        }
        return engine
                .keyPrefix(settings.keyPrefix())
                .answerGrace(settings.answerGrace())
                .listener(settings.listener())
                .localHandoff(settings.localHandoff())
                .verifyBeforeCommit(settings.verifyBeforeCommit())
                .leaseProof(settings.leaseProof())
                .build(backend);
    }
}
