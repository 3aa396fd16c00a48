package dev.distlock.internal.core;

import dev.distlock.Batch;
import dev.distlock.LockTimeoutException;
import dev.distlock.OnTimeout;
import dev.distlock.spi.LockPolicy;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * One waiting combined call ({@link CombinedCalls}). Its state is guarded by its combiner's monitor; the answer the batch gives
 * it, by its own (the batch method answers on the leader's thread, outside the combiner's).
 */
final class WaitingCall implements Batch.Call<Object> {
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

    WaitingCall(Object[] arguments) {
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

    void timedOut(LockPolicy policy, List<String> keys, boolean interrupted) {
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
