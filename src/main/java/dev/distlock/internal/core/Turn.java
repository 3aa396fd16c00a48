package dev.distlock.internal.core;

import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/**
 * One key's turn in this JVM: a fair lock that is not owned by a thread, so that any thread may give
 * it back (a {@code CompletionStage} releases from whatever thread completes it), and not
 * reentrant (reentry is the {@link LockOwner}'s business). Exclusive, unlike a semaphore of one
 * permit: a semaphore's shared mode wakes the next waiter each time a waiter gets the permit, only
 * for it to find none and sleep again — on a hot key, a wasted wake-up per turn on a busy CPU.
 */
final class Turn {

    private final Sync sync = new Sync();

    /** Waits for the turn, as long as it takes. @throws InterruptedException with the turn not taken */
    void take() throws InterruptedException {
        sync.acquireInterruptibly(1);
    }

    /**
     * Waits for the turn at most {@code nanos}; 0 tries once.
     *
     * @return whether the turn was taken
     * @throws InterruptedException with the turn not taken
     */
    boolean take(long nanos) throws InterruptedException {
        return sync.tryAcquireNanos(1, nanos);
    }

    /** Gives the turn to the longest waiter, if any; from any thread, by whoever took it. */
    void give() {
        sync.release(1);
    }

    /** State 1 while someone has the turn. */
    private static final class Sync extends AbstractQueuedSynchronizer {
        @Override
        protected boolean tryAcquire(int ignored) {
            // Fair: a caller arriving as the turn is given does not pass those already waiting.
            return !hasQueuedPredecessors() && compareAndSetState(0, 1);
        }

        @Override
        protected boolean tryRelease(int ignored) {
            if (getState() != 1) {
                throw new IllegalStateException("the turn was given back without having been taken");
            }
            setState(0);
            return true;
        }
    }

    @Override
    public String toString() {
        return "Turn[" + (sync.hasQueuedThreads() ? "taken, waiters" : "no waiters") + "]";
    }
}
