package dev.distlock.internal.core;

import dev.distlock.DistributedLocks;
import dev.distlock.EngineFactory;
import dev.distlock.spi.LockBackend;

/** The engine behind {@link DistributedLocks.Builder}, listed in META-INF/services. */
public final class CoreEngineFactory implements EngineFactory {

    @Override
    public DistributedLocks build(LockBackend backend, Settings settings) {
        return new EngineBuilder().settings(settings).build(backend);
    }
}
