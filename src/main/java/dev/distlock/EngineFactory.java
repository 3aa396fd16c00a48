package dev.distlock;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.NodeName;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link DistributedLocks.Builder} makes the engine over a backend: implemented once, by
 * distlock's engine, and found through {@link Implementations#of}, so that the API names no class
 * of the engine. Not for applications or backends to implement. It sits beside the builder, not in
 * the SPI, so that the SPI holds only what a store author implements and the two never form a loop.
 */
public interface EngineFactory {

    /** Locks over {@code backend}, which they close when they are closed. */
    DistributedLocks build(LockBackend backend, Settings settings);

    /**
     * The engine's settings, one record from every entry point to the engine: the builder fills it
     * in for applications, the CDI layer from MicroProfile Config, tests directly. Checked here,
     * once, so that every entry point refuses the same values with the same words.
     *
     * @param keyPrefix          put before every key, followed by {@code :}
     * @param answerGrace        how much longer than the wait time the store may take to answer
     *                           before the call fails with {@link LockServiceUnavailableException}; positive
     * @param listener           told of acquisitions, releases, timeouts and lost locks
     * @param localHandoff       how far a held lock may be passed between callers in this JVM
     * @param verifyBeforeCommit just before a transaction that holds locks commits, check that it
     *                           still holds them, and mark it rollback-only if not
     * @param leaseProof         which locks that check may show held from their lease
     * @param nodeName           the name this server goes by in the store ({@link NodeName}); {@code null}: the host's
     */
    record Settings(String keyPrefix, Duration answerGrace, LockListener listener, LocalHandoff localHandoff,
                    boolean verifyBeforeCommit, LeaseProof leaseProof, String nodeName) {

        /** What an application gets without setting anything. */
        public static final Settings DEFAULTS = new Settings(DistributedLocks.DEFAULT_KEY_PREFIX,
                DistributedLocks.DEFAULT_ANSWER_GRACE, LockListener.NONE, LocalHandoff.DEFAULT, true, LeaseProof.FENCED, null);

        public Settings {
            Objects.requireNonNull(keyPrefix, "keyPrefix");
            Objects.requireNonNull(answerGrace, "answerGrace");
            if (answerGrace.isNegative() || answerGrace.isZero() || answerGrace.toMillis() == 0) {
                throw new IllegalArgumentException("the answer grace must be at least 1 ms, was " + answerGrace);
            }
            Objects.requireNonNull(listener, "listener");
            Objects.requireNonNull(localHandoff, "localHandoff");
            Objects.requireNonNull(leaseProof, "leaseProof");
            if (nodeName != null) {
                NodeName.check(nodeName);
            }
        }

        /** The name this server goes by in the store: the one set, else the host's. Resolved here only. */
        public String nodeNameOrHost() {
            return nodeName != null ? nodeName : NodeName.ofThisHost();
        }

        public Settings withKeyPrefix(String prefix) {
            return new Settings(prefix, answerGrace, listener, localHandoff, verifyBeforeCommit, leaseProof, nodeName);
        }

        public Settings withAnswerGrace(Duration grace) {
            return new Settings(keyPrefix, grace, listener, localHandoff, verifyBeforeCommit, leaseProof, nodeName);
        }

        public Settings withListener(LockListener told) {
            return new Settings(keyPrefix, answerGrace, told, localHandoff, verifyBeforeCommit, leaseProof, nodeName);
        }

        public Settings withLocalHandoff(LocalHandoff handoff) {
            return new Settings(keyPrefix, answerGrace, listener, handoff, verifyBeforeCommit, leaseProof, nodeName);
        }

        public Settings withVerifyBeforeCommit(boolean verify) {
            return new Settings(keyPrefix, answerGrace, listener, localHandoff, verify, leaseProof, nodeName);
        }

        public Settings withLeaseProof(LeaseProof proof) {
            return new Settings(keyPrefix, answerGrace, listener, localHandoff, verifyBeforeCommit, proof, nodeName);
        }

        public Settings withNodeName(String name) {
            return new Settings(keyPrefix, answerGrace, listener, localHandoff, verifyBeforeCommit, leaseProof, name);
        }
    }
}
