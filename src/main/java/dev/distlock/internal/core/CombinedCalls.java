package dev.distlock.internal.core;

import dev.distlock.Batch;
import dev.distlock.CombinedCallFailedException;
import dev.distlock.LockTimeoutException;
import dev.distlock.OnTimeout;
import dev.distlock.spi.LockPolicy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
            return executor.execute(policy, keys, template, ReturnKind.VALUE, alone);
        }
        Group group = new Group(method, List.copyOf(keys));
        Combiner combiner = combiners.compute(group, (g, existing) -> (existing == null ? new Combiner() : existing).joined());
        try {
            return combiner.call(new Request(Objects.requireNonNull(arguments, "arguments")), policy, keys, template, method);
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
        Request request = new Request(arguments);
        method.serve(new Served(List.of(request)));
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

    /** The waiting calls of one group and who leads them; its monitor guards them. */
    private final class Combiner {
        private final ArrayDeque<Request> waiting = new ArrayDeque<>();
        private boolean led;
        /** Callers inside {@link #call}, guarded by the map's bin: the group goes when the last leaves. */
        private int callers;

        Combiner joined() {
            callers++;
            return this;
        }

        /** @return whether that was the last caller */
        boolean left() {
            return --callers == 0;
        }

        Object call(Request request, LockPolicy policy, List<String> keys, String template, CombinedMethod method) throws Exception {
            long deadline = policy.waitsForever() ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(policy.waitMillis());
            synchronized (this) {
                waiting.add(request);
                if (!led) {
                    led = true;
                    request.leads = true;
                }
            }
            boolean interrupted = false;
            while (true) {
                boolean leads;
                synchronized (this) {
                    if (request.done) {
                        break;
                    }
                    leads = request.leads;
                }
                if (leads) {
                    lead(request, policy, keys, template, method, deadline);
                    continue;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || Thread.interrupted()) {
                    interrupted |= left > 0;
                    synchronized (this) {
                        if (!request.taken && !request.leads && !request.done) {
                            waiting.remove(request);
                            request.timedOut(policy, keys, method, interrupted);
                        }
                    }
                    if (!request.done) {
                        // Taken into a batch already, or asked to lead: it is answered soon; wait for that.
                        deadline = Long.MAX_VALUE;
                    }
                    continue;
                }
                LockSupport.parkNanos(this, deadline == Long.MAX_VALUE ? TimeUnit.SECONDS.toNanos(1) : left);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return request.outcome();
        }

        /** Serves a batch holding the lock, which takes {@code self} and hands the lead on; or fails {@code self} and hands it on. */
        private void lead(Request self, LockPolicy policy, List<String> keys, String template, CombinedMethod method, long deadline) {
            try {
                while (true) {
                    synchronized (this) {
                        if (self.done) {
                            return;
                        }
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0 && !self.taken) {
                        synchronized (this) {
                            waiting.remove(self);
                            self.timedOut(policy, keys, method, false);
                        }
                        return;
                    }
                    serveOneBatch(self, within(policy, left, deadline), keys, template, method);
                    synchronized (this) {
                        if (!self.leads) {
                            return; // led on already, while its batch ran: it waits for its answer as any caller
                        }
                    }
                }
            } finally {
                synchronized (this) {
                    if (self.leads) {
                        passLead(self);
                    }
                }
            }
        }

        /**
         * Makes the oldest waiting call the leader, or none. Done as soon as a batch has been taken,
         * so that the next leader is already waiting for the lock when the batch gives it back.
         * Called under this monitor.
         */
        private void passLead(Request self) {
            self.leads = false;
            Request next = waiting.peek();
            if (next == null) {
                led = false;
            } else {
                next.leads = true;
                LockSupport.unpark(next.thread);
            }
        }

        private void serveOneBatch(Request self, LockPolicy policy, List<String> keys, String template, CombinedMethod method) {
            List<Request> batch = new ArrayList<>();
            boolean[] served = {false};
            Object[] recording = {null};
            Object ran;
            try {
                ran = executor.execute(policy, keys, template, ReturnKind.VALUE, () -> {
                    recording[0] = FlightEvents.batchStarted();
                    executor.giveBackAtRelease();
                    synchronized (this) {
                        for (Iterator<Request> it = waiting.iterator(); it.hasNext() && batch.size() < method.max(); ) {
                            Request next = it.next();
                            it.remove();
                            next.taken = true;
                            batch.add(next);
                        }
                        passLead(self);
                    }
                    method.serve(new Served(batch));
                    served[0] = true;
                    return Served.RAN;
                });
            } catch (Throwable failure) {
                if (batch.isEmpty()) {
                    // The lock was not had (or the store failed): the leader's own call fails, the others wait on.
                    synchronized (this) {
                        waiting.remove(self);
                        self.failed(failure);
                    }
                } else {
                    FlightEvents.batchEnded(recording[0], String.join(",", keys), policy.site(), batch.size(),
                            served[0] ? "took effect, release failed" : "failed");
                    failAll(batch, failure, served[0], keys);
                }
                return;
            }
            if (ran != Served.RAN) {
                synchronized (this) {
                    waiting.remove(self);
                    self.skipped();
                }
                return;
            }
            FlightEvents.batchEnded(recording[0], String.join(",", keys), policy.site(), batch.size(), "answered");
            synchronized (this) {
                for (Request request : batch) {
                    request.answered();
                }
            }
        }

        /**
         * @param served whether the batch method returned (and its transaction, if it had one,
         *               committed): what failed then was the lock's release
         */
        private void failAll(List<Request> batch, Throwable failure, boolean served, List<String> keys) {
            String what = served
                    ? "ran and took effect, but its lock's release failed (" + failure.getMessage() + "): its work may not have"
                    + " run alone"
                    : "failed (" + failure + "); its transaction, if it had one, did not commit";
            synchronized (this) {
                for (Request request : batch) {
                    request.failed(new CombinedCallFailedException("The batch of " + batch.size() + " combined calls on " + keys
                            + " " + what + ". This call's answer was not delivered; it can be retried.", batch.size(), failure));
                }
            }
        }
    }

    /** The leader's policy for one batch: what is left of its wait. */
    private static LockPolicy within(LockPolicy policy, long leftNanos, long deadline) {
        if (deadline == Long.MAX_VALUE) {
            return policy;
        }
        long millis = Math.max(0, TimeUnit.NANOSECONDS.toMillis(leftNanos));
        return new LockPolicy(policy.site(), policy.mode(), millis, policy.leaseMillis(), policy.onTimeout(), policy.fenced(),
                policy.holdAtLeastMillis());
    }

    /** The calls of one batch, as the batch method sees them. */
    private static final class Served implements Batch<Object> {
        static final Object RAN = new Object();
        private final List<Request> calls;

        Served(List<Request> calls) {
            this.calls = calls;
        }

        @Override
        public int size() {
            return calls.size();
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Iterator<Call<Object>> iterator() {
            return (Iterator) List.copyOf(calls).iterator();
        }
    }

    /**
     * One waiting call. Its state is guarded by its combiner's monitor; the answer the batch gives
     * it, by its own (the batch method answers on the leader's thread, outside the combiner's).
     */
    private static final class Request implements Batch.Call<Object> {
        private final Object[] arguments;
        final Thread thread = Thread.currentThread();
        boolean leads;
        boolean taken;
        /** Answered for good; written under the combiner's monitor, read by the batch's answers too. */
        volatile boolean done;
        private boolean hasAnswer;
        private Object answer;
        private Throwable answerFailure;
        private Object result;
        private Throwable failure;

        Request(Object[] arguments) {
            this.arguments = arguments;
        }

        @Override
        public Object[] arguments() {
            return arguments.clone();
        }

        @Override
        public void complete(Object value) {
            answer(value, null);
        }

        @Override
        public void fail(Throwable failure) {
            answer(null, Objects.requireNonNull(failure, "failure"));
        }

        private synchronized void answer(Object value, Throwable failure) {
            if (done) {
                throw new IllegalStateException("this call's batch is over: answer calls while the batch method runs");
            }
            if (hasAnswer) {
                throw new IllegalStateException("this call was answered already");
            }
            answer = value;
            answerFailure = failure;
            hasAnswer = true;
        }

        /** The batch took effect: the call gets what the batch answered it. Called under the combiner's monitor. */
        synchronized void answered() {
            if (!hasAnswer) {
                finish(null, new IllegalStateException("the batch method returned without answering this call"));
            } else {
                finish(answer, answerFailure);
            }
        }

        void failed(Throwable failure) {
            finish(null, failure);
        }

        void skipped() {
            finish(null, null);
        }

        void timedOut(LockPolicy policy, List<String> keys, CombinedMethod method, boolean interrupted) {
            if (policy.onTimeout() == OnTimeout.SKIP && !interrupted) {
                skipped();
                return;
            }
            String name = String.join(",", keys);
            finish(null, interrupted ? LockErrors.interrupted(name, new InterruptedException())
                    : new LockTimeoutException(name, "No batch served this combined call of " + policy.site() + " on " + keys
                    + " within " + policy.waitMillis() + " ms (" + policy.mode().annotation() + ".waitTime); another holder"
                    + " still has the lock. Retry later, or raise waitTime."));
        }

        private void finish(Object value, Throwable error) {
            result = value;
            failure = error;
            done = true;
            LockSupport.unpark(thread);
        }

        /** Read by the call's own thread once it saw {@link #done} under the combiner's monitor. */
        Object outcome() throws Exception {
            if (failure instanceof Exception exception) {
                throw exception;
            }
            if (failure instanceof Error error) {
                throw error;
            }
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
            return result;
        }
    }
}
