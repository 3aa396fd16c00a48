package dev.distlock.internal.core;

import dev.distlock.Batch;
import dev.distlock.CombinedCallFailedException;
import dev.distlock.LockTimeoutException;
import dev.distlock.spi.LockPolicy;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Combined calls ({@link dev.distlock.Combined}): the callers of one combined method that want the
 * same keys in this JVM wait here, each with its arguments, rather than each in the key's local
 * queue. One of them leads: it takes the lock as any caller does — in its turn in the local queue,
 * against other JVMs through the store, within the handoff bound — and holding it runs the batch
 * for up to {@link CombinedMethod#max()} of the waiting calls, oldest first. As soon as it has taken
 * them it hands the lead on to the oldest call still waiting, which queues for the lock while the
 * batch runs; then it delivers each caller of its batch its answer. Each batch is a tenure of its
 * own: its lock goes back to the store at its release rather than on to the next batch here, so
 * that another JVM's batch can go next (the next leader here holds off a moment, as after the
 * handoff bound). Since a batch serves everyone waiting here, handing the lock on within the JVM
 * would save two round trips per batch and let one JVM's batches keep the lock from the other's
 * for the length of the handoff bound. A call is answered
 * only after its batch's locked work has returned, so after the batch's transaction has committed;
 * if the batch failed, every call in it gets a {@link CombinedCallFailedException}.
 *
 * <p>A call made inside a transaction or inside another locked call is served alone, by the
 * executor, like any locked call: its work stays in its transaction and its chain.
 */
public final class CombinedCalls {

    private final LockExecutor executor;
    private final ConcurrentHashMap<Group, Combiner> combiners = new ConcurrentHashMap<>();

    CombinedCalls(LockExecutor executor) {
        this.executor = executor;
    }

    /**
     * One combined call.
     *
     * @param keys      rendered keys, without prefix
     * @param template  the keys' templates, for traces; {@code null} when unknown
     * @param method    what serves a batch of these calls
     * @param arguments the call's arguments, handed to the batch as they are
     * @param alone     the call served alone (the method itself): for a call inside a transaction or a locked call
     * @return the call's answer; {@code null} when skipped on timeout
     * @throws LockTimeoutException        when its batch did not start within the policy's wait, and the policy fails
     * @throws CombinedCallFailedException when its batch failed
     * @throws Exception                   the failure its batch answered it with, unchanged
     */
    public Object call(LockPolicy policy, List<String> keys, String template, CombinedMethod method, Object[] arguments,
                       Callable<?> alone) throws Exception {
        if (executor.inChainOrTransaction()) {
            return executor.execute(LockRequest.of(policy, keys, template, ReturnKind.VALUE, alone));
        }
        Group group = new Group(method, List.copyOf(keys));
        Combiner combiner = combiners.compute(group, (g, existing) -> (existing == null ? new Combiner(executor) : existing).joined());
        try {
            return combiner.call(new WaitingCall(Objects.requireNonNull(arguments, "arguments")), policy, keys, template, method);
        } finally {
            combiners.computeIfPresent(group, (g, existing) -> existing.left() ? null : existing);
        }
    }

    /**
     * A combined call served alone, by its batch work, as a batch of this one call: for the
     * programmatic API, whose combinations have no single-call method. A failure of the work is
     * the caller's own, unchanged.
     */
    public static Object alone(CombinedMethod method, Object[] arguments) throws Exception {
        WaitingCall request = new WaitingCall(arguments);
        method.serve(new ServedBatch(List.of(request)));
        request.answered();
        return request.outcome();
    }

    /** Groups with callers now; for tests, which check that none outlives its callers. */
    public int groupCount() {
        return combiners.size();
    }

    /**
     * What serves a batch of a combined method's calls: one instance per combined method, which
     * is also what tells its calls' groups apart.
     */
    public interface CombinedMethod {

        /** The most calls one batch serves. */
        int max();

        /** Runs the batch, holding the lock: answers each call, or throws to fail them all. */
        void serve(Batch<Object> batch) throws Exception;
    }

    /** The calls of one combined method that want the same keys. */
    private record Group(CombinedMethod method, List<String> keys) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Group group && group.method == method && group.keys.equals(keys);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(method) * 31 + keys.hashCode();
        }
    }

}
