package dev.distlock.internal.core;

import dev.distlock.EngineFactory;

import java.util.Objects;

/**
 * Everything a {@link LockExecutor} is made with besides its backend: the settings an application
 * gives ({@link EngineFactory.Settings}, from the builder or from MicroProfile Config), plus what
 * only distlock's own layers bring, the transaction manager and the tracer.
 *
 * @param locks        what the application set
 * @param transactions the transaction manager, or {@link TransactionBridge#NONE}
 * @param tracing      told of each locked call, for traces; {@link LockTracing#NONE} for none
 */
public record ExecutorSettings(EngineFactory.Settings locks, TransactionBridge transactions, LockTracing tracing) {

    /** The defaults, with no transaction manager and no tracer. */
    public static final ExecutorSettings DEFAULTS = new ExecutorSettings(EngineFactory.Settings.DEFAULTS,
            TransactionBridge.NONE, LockTracing.NONE);

    public ExecutorSettings {
        Objects.requireNonNull(locks, "locks");
        Objects.requireNonNull(transactions, "transactions");
        Objects.requireNonNull(tracing, "tracing");
    }

    public ExecutorSettings withLocks(EngineFactory.Settings settings) {
        return new ExecutorSettings(settings, transactions, tracing);
    }

    public ExecutorSettings withTransactions(TransactionBridge bridge) {
        return new ExecutorSettings(locks, bridge, tracing);
    }

    public ExecutorSettings withTracing(LockTracing tracer) {
        return new ExecutorSettings(locks, transactions, tracer);
    }
}
