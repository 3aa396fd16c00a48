package dev.distlock.internal.core;

import dev.distlock.CombinedCallFailedException;
import dev.distlock.spi.LockPolicy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The waiting calls of one group of {@link CombinedCalls} (one combined method, the same keys) and
 * who leads them; its monitor guards them. The leader serves a batch holding the lock and hands the
 * lead on as soon as it has taken the batch.
 */
final class Combiner {
    private final LockExecutor executor;
    private final ArrayDeque<WaitingCall> waiting = new ArrayDeque<>();
    private boolean led;
    /** Callers inside {@link #call}, guarded by the map's bin: the group goes when the last leaves. */
    private int callers;

    Combiner(LockExecutor executor) {
        this.executor = executor;
    }

    Combiner joined() {
        callers++;
        return this;
    }

    /** @return whether that was the last caller */
    boolean left() {
        return --callers == 0;
    }

    Object call(WaitingCall request, LockPolicy policy, List<String> keys, String template, CombinedCalls.CombinedMethod method) throws Exception {
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
                        request.timedOut(policy, keys, interrupted);
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
    private void lead(WaitingCall self, LockPolicy policy, List<String> keys, String template, CombinedCalls.CombinedMethod method, long deadline) {
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
                        self.timedOut(policy, keys, false);
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
    private void passLead(WaitingCall self) {
        self.leads = false;
        WaitingCall next = waiting.peek();
        if (next == null) {
            led = false;
        } else {
            next.leads = true;
            LockSupport.unpark(next.thread);
        }
    }

    private void serveOneBatch(WaitingCall self, LockPolicy policy, List<String> keys, String template, CombinedCalls.CombinedMethod method) {
        List<WaitingCall> batch = new ArrayList<>();
        boolean[] served = {false};
        Object[] recording = {null};
        Object ran;
        try {
            ran = executor.execute(LockRequest.of(policy, keys, template, ReturnKind.VALUE, () -> {
                recording[0] = FlightEvents.batchStarted();
                executor.giveBackAtRelease();
                synchronized (this) {
                    for (Iterator<WaitingCall> it = waiting.iterator(); it.hasNext() && batch.size() < method.max(); ) {
                        WaitingCall next = it.next();
                        it.remove();
                        next.taken = true;
                        batch.add(next);
                    }
                    passLead(self);
                }
                method.serve(new ServedBatch(batch));
                served[0] = true;
                return ServedBatch.RAN;
            }));
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
        if (ran != ServedBatch.RAN) {
            synchronized (this) {
                waiting.remove(self);
                self.skipped();
            }
            return;
        }
        FlightEvents.batchEnded(recording[0], String.join(",", keys), policy.site(), batch.size(), "answered");
        synchronized (this) {
            for (WaitingCall request : batch) {
                request.answered();
            }
        }
    }

    /**
     * @param served whether the batch method returned (and its transaction, if it had one,
     *               committed): what failed then was the lock's release
     */
    private void failAll(List<WaitingCall> batch, Throwable failure, boolean served, List<String> keys) {
        String what = served
                ? "ran and took effect, but its lock's release failed (" + failure.getMessage() + "): its work may not have"
                + " run alone"
                : "failed (" + failure + "); its transaction, if it had one, did not commit";
        synchronized (this) {
            for (WaitingCall request : batch) {
                request.failed(new CombinedCallFailedException("The batch of " + batch.size() + " combined calls on " + keys
                        + " " + what + ". This call's answer was not delivered; it can be retried.", batch.size(), failure));
            }
        }
    }

    /** The leader's policy for one batch: what is left of its wait. */
    private static LockPolicy within(LockPolicy policy, long leftNanos, long deadline) {
        return deadline == Long.MAX_VALUE ? policy : policy.withWaitMillis(Math.max(0, TimeUnit.NANOSECONDS.toMillis(leftNanos)));
    }
}
