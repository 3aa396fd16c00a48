package dev.distlock.internal.core;

import dev.distlock.DistributedLocks;
import dev.distlock.EngineFactory;
import dev.distlock.LeaseProof;
import dev.distlock.LocalHandoff;
import dev.distlock.LockListener;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.NodeName;

import java.time.Duration;
import java.util.Objects;

/**
 * Makes an engine and the {@link DistributedLocks} over it: what {@link DistributedLocks.Builder}
 * fills in for applications, plus what only distlock's own layers set (the transaction manager,
 * which the CDI layer brings, and the tracer). Each setter changes one field of one
 * {@link ExecutorSettings}, which the engine is made with.
 */
public final class EngineBuilder {

    private ExecutorSettings settings = ExecutorSettings.DEFAULTS;

    /** All that an application sets, at once. */
    public EngineBuilder settings(EngineFactory.Settings locks) {
        settings = settings.withLocks(locks);
        return this;
    }

    public EngineBuilder keyPrefix(String prefix) {
        return settings(settings.locks().withKeyPrefix(prefix));
    }

    public EngineBuilder answerGrace(Duration grace) {
        return settings(settings.locks().withAnswerGrace(Objects.requireNonNull(grace, "grace")));
    }

    public Duration answerGrace() {
        return settings.locks().answerGrace();
    }

    public EngineBuilder listener(LockListener listener) {
        return settings(settings.locks().withListener(listener));
    }

    public EngineBuilder localHandoff(LocalHandoff handoff) {
        return settings(settings.locks().withLocalHandoff(handoff));
    }

    public EngineBuilder verifyBeforeCommit(boolean verify) {
        return settings(settings.locks().withVerifyBeforeCommit(verify));
    }

    public EngineBuilder leaseProof(LeaseProof proof) {
        return settings(settings.locks().withLeaseProof(proof));
    }

    /** The name this server goes by in the store ({@link NodeName}); this host's name unless set. */
    public EngineBuilder nodeName(String name) {
        return settings(settings.locks().withNodeName(name));
    }

    /** Lets locks taken inside a transaction be released when it completes; {@link TransactionBridge#NONE} unless set. */
    public EngineBuilder transactions(TransactionBridge bridge) {
        settings = settings.withTransactions(bridge);
        return this;
    }

    /** Tells each locked call to a tracer; {@link LockTracing#NONE} unless set. */
    public EngineBuilder tracing(LockTracing tracing) {
        settings = settings.withTracing(tracing);
        return this;
    }

    /** An engine over {@code backend}, which it closes when it is closed. */
    public EngineLocks build(LockBackend backend) {
        return new EngineLocks(new LockExecutor(backend, settings));
    }
}
