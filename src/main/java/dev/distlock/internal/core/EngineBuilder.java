package dev.distlock.internal.core;

import dev.distlock.DistributedLocks;
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
 * which the CDI layer brings).
 */
public final class EngineBuilder {

    private String keyPrefix = DistributedLocks.DEFAULT_KEY_PREFIX;
    private Duration answerGrace = DistributedLocks.DEFAULT_ANSWER_GRACE;
    private LockListener listener = LockListener.NONE;
    private LocalHandoff handoff = LocalHandoff.DEFAULT;
    private boolean verifyBeforeCommit = true;
    private LeaseProof leaseProof = LeaseProof.FENCED;
    private TransactionBridge transactions = TransactionBridge.NONE;
    private LockTracing tracing = LockTracing.NONE;
    private String nodeName;

    public EngineBuilder keyPrefix(String prefix) {
        this.keyPrefix = prefix;
        return this;
    }

    public EngineBuilder answerGrace(Duration grace) {
        this.answerGrace = Objects.requireNonNull(grace, "grace");
        return this;
    }

    public Duration answerGrace() {
        return answerGrace;
    }

    public EngineBuilder listener(LockListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    public EngineBuilder localHandoff(LocalHandoff handoff) {
        this.handoff = Objects.requireNonNull(handoff, "handoff");
        return this;
    }

    public EngineBuilder verifyBeforeCommit(boolean verify) {
        this.verifyBeforeCommit = verify;
        return this;
    }

    public EngineBuilder leaseProof(LeaseProof proof) {
        this.leaseProof = Objects.requireNonNull(proof, "proof");
        return this;
    }

    /** Lets locks taken inside a transaction be released when it completes; {@link TransactionBridge#NONE} unless set. */
    public EngineBuilder transactions(TransactionBridge bridge) {
        this.transactions = Objects.requireNonNull(bridge, "bridge");
        return this;
    }

    /** Tells each locked call to a tracer; {@link LockTracing#NONE} unless set. */
    public EngineBuilder tracing(LockTracing tracing) {
        this.tracing = Objects.requireNonNull(tracing, "tracing");
        return this;
    }

    /** The name this server goes by in the store ({@link NodeName}); this host's name unless set. */
    public EngineBuilder nodeName(String name) {
        this.nodeName = name; // checked by the engine (LockExecutor), once
        return this;
    }

    /** An engine over {@code backend}, which it closes when it is closed. */
    public EngineLocks build(LockBackend backend) {
        return new EngineLocks(new LockExecutor(backend, keyPrefix,
                nodeName != null ? nodeName : NodeName.ofThisHost(), transactions, answerGrace.toMillis(), listener,
                handoff, verifyBeforeCommit, leaseProof, tracing));
    }
}
