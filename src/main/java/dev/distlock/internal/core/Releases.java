package dev.distlock.internal.core;

import dev.distlock.DistlockException;
import dev.distlock.LocalHandoff;
import dev.distlock.LockLostException;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Ends holds: passes a lock on to the next caller in this JVM that waits for it (within the
 * {@link LocalHandoff} bound), or gives it back to the backend. Owns this JVM's {@link LocalQueues}.
 * A release completes normally, or with the {@link DistlockException} to report (a lost lock, a
 * backend that could not be told), as {@link LockErrors} words it.
 */
final class Releases {

    private static final System.Logger LOG = System.getLogger(Releases.class.getName());
    /** How long callers here hold off after their JVM gave a wanted lock back at the handoff bound. */
    private static final long YIELD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How long a wait for a release looks at a time whether the engine was closed meanwhile. */
    private static final long AWAIT_SLICE_MILLIS = 250;
    /** A release with nothing to report; shared, since a completed future cannot change. */
    static final CompletableFuture<Void> RELEASED = CompletableFuture.completedFuture(null);

    private final String store;
    private final LocalHandoff handoff;
    private final long handoffNanos;
    private final LockEvents events;
    final LocalQueues localQueues = new LocalQueues(this::releaseAbandoned);
    private final LongAdder handoffs = new LongAdder();
    /** The engine's timer, for releases kept back for a minimum hold; closed with the engine. */
    private final LeaseWatch timer;
    /** How long a wait for the backend's answer lasts once the engine is closed. */
    private final long answerGraceNanos;
    /** Tenures whose work is done, kept until their minimum hold has passed; given back early on close. */
    private final Set<Tenure> keptForMinimumHold = ConcurrentHashMap.newKeySet();
    /** {@link HandoffOrder#CONFIRM_FIRST} but in the model check's twin. */
    private final HandoffOrder handoffOrder;

    Releases(String store, LocalHandoff handoff, LockEvents events, LeaseWatch timer, long answerGraceMillis,
             HandoffOrder handoffOrder) {
        this.handoffOrder = handoffOrder;
        this.store = store;
        this.answerGraceNanos = TimeUnit.MILLISECONDS.toNanos(answerGraceMillis);
        this.handoff = handoff;
        this.handoffNanos = handoff.maxTime().toNanos();
        this.events = events;
        this.timer = timer;
    }

    /**
     * A call is done with what it took: each hold loses the call's claim, and those nothing claims
     * any more are released, latest first. Fails with the first failure, the others suppressed in it.
     */
    CompletableFuture<Void> callDone(List<Hold> taken) {
        CompletableFuture<Void> result = RELEASED;
        for (int i = taken.size() - 1; i >= 0; i--) {
            Hold hold = taken.get(i);
            if (hold.owner.callDone(hold)) {
                // The first release needs no stage to combine with (the common case: one key).
                result = result == RELEASED ? release(hold) : both(result, release(hold));
            }
        }
        return result;
    }

    private static CompletableFuture<Void> both(CompletableFuture<Void> first, CompletableFuture<Void> next) {
        return first.handle((ignored, error) -> LockErrors.failureOf(error))
                .thenCombine(next.handle((ignored, error) -> LockErrors.failureOf(error)), LockErrors::firstWithSuppressed)
                .thenApply(Releases::reported);
    }

    /** Completes the release's stage normally, or with {@code failure}. */
    private static Void reported(DistlockException failure) {
        if (failure != null) {
            throw new CompletionException(failure);
        }
        return null;
    }

    /** Ends a hold: to the next local caller that waits for it, or back to the backend. */
    CompletableFuture<Void> release(Hold hold) {
        long holdLeftNanos = hold.minimumHoldLeftNanos();
        if (holdLeftNanos > 0) {
            return keepForMinimumHold(hold, holdLeftNanos);
        }
        LocalQueues.Queue queue = hold.queue();
        Tenure tenure = hold.tenure;
        boolean wantedHere = queue != null && passable(tenure, queue);
        if (wantedHere && withinHandoffBound(tenure)) {
            return passOn(hold, queue);
        }
        return tenure.unlock().handle((wasHeld, error) -> {
            DistlockException failure = LockErrors.released(store, hold.name, wasHeld, error);
            if (wantedHere) { // wanted here but not passed on: the bound was reached, let another JVM have a turn
                queue.yieldFor(YIELD_NANOS);
            }
            // The next local contender may go to the backend once it has the lock back (or has lost it).
            leaveLocalQueue(hold);
            FlightEvents.held(hold.recording, hold, "released in store");
            if (failure == null) {
                events.released(hold);
            } else if (failure instanceof LockLostException) {
                events.lost(hold);
            }
            return reported(failure);
        });
    }

    /**
     * The work is done before its lock's minimum hold has passed: the lock stays taken in the backend
     * (renewed as before) and goes back when the hold has passed; callers here wait for it in the
     * backend like everyone else, it is not passed on. The caller learns now, as for a handoff,
     * whether the lock was still held when it finished.
     */
    private CompletableFuture<Void> keepForMinimumHold(Hold hold, long holdLeftNanos) {
        Tenure tenure = hold.tenure;
        CompletableFuture<Boolean> check = tenure.confirm();
        keptForMinimumHold.add(tenure);
        timer.later(() -> giveBackKept(tenure), holdLeftNanos);
        leaveLocalQueue(hold);
        FlightEvents.held(hold.recording, hold, "kept for its minimum hold");
        return check.handle((held, error) -> {
            DistlockException failure = LockErrors.confirmed(store, hold.name, held, error);
            if (failure == null) {
                events.released(hold);
                return null;
            }
            if (failure instanceof LockLostException) {
                events.lost(hold);
            }
            return reported(failure);
        });
    }

    /** The minimum hold has passed (or the engine stops): the kept lock goes back to the backend, once. */
    private void giveBackKept(Tenure tenure) {
        if (keptForMinimumHold.remove(tenure)) {
            unlock(tenure).whenComplete((ignored, error) -> {
                if (error != null) {
                    LOG.log(System.Logger.Level.DEBUG, "Releasing lock '" + tenure.name + "' after its minimum hold: "
                            + LockErrors.failureOf(error).getMessage());
                }
            });
        }
    }

    /**
     * The engine stops: locks kept for a minimum hold go back now rather than stay taken until
     * their lease runs out (a renewed lease would not run out while the client lives).
     *
     * @return when the backend has answered every release
     */
    CompletableFuture<Void> giveBackAllKept() {
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (Tenure tenure : List.copyOf(keptForMinimumHold)) {
            if (keptForMinimumHold.remove(tenure)) {
                releases.add(unlock(tenure).exceptionally(error -> null));
            }
        }
        return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new));
    }

    /**
     * Waits for a release, not giving up on an interrupt (a lock must not be left behind) — but not
     * past the engine's close: once it is closed, an answer that has not come within the answer
     * grace will not come (the lease watch that would have sent a check is gone, or the store went
     * silent), and the wait ends; the lock then ends with its lease.
     *
     * @return what the release failed with, or {@code null}
     */
    DistlockException await(CompletableFuture<Void> release) {
        boolean interrupted = false;
        long closedAt = 0;
        try {
            while (true) {
                try {
                    release.get(AWAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS);
                    return null;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    return LockErrors.failureOf(e);
                } catch (TimeoutException notYet) {
                    if (timer.isClosed()) {
                        long now = System.nanoTime();
                        if (closedAt == 0) {
                            closedAt = now;
                        } else if (now - closedAt > answerGraceNanos) {
                            return LockErrors.closedWhileReleasing(store);
                        }
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Gives a tenure back to the backend. */
    CompletableFuture<Void> unlock(Tenure tenure) {
        return tenure.unlock().handle((wasHeld, error) -> reported(LockErrors.released(store, tenure.name, wasHeld, error)));
    }

    /** The hold's turn in the local queue goes to the next caller, if it still has one. */
    void leaveLocalQueue(Hold hold) {
        LocalQueues.Queue queue = hold.takeTurn();
        if (queue != null) {
            localQueues.leave(hold.name, queue);
        }
    }

    /** How many times a lock was passed from one caller to the next in this JVM. */
    long handoffCount() {
        return handoffs.sum();
    }

    /** Callers here wait for a lock that may be handed on at all (renewed, not lost), fenced or not. */
    private boolean passable(Tenure tenure, LocalQueues.Queue queue) {
        return handoff.enabled()
                && tenure.watchdog
                && !tenure.isBroken()
                && queue.othersWaiting();
    }

    private boolean withinHandoffBound(Tenure tenure) {
        return tenure.handoffs() < handoff.maxHandoffs()
                && System.nanoTime() - tenure.acquiredAtNanos < handoffNanos;
    }

    /**
     * Leaves the lock to the next local caller and lets it run at once. This caller still waits for
     * the backend to confirm that the lock was held when it finished (see {@link Tenure}), so a lost
     * lock is reported to every caller that ran under it, as a release in the backend would.
     */
    private CompletableFuture<Void> passOn(Hold hold, LocalQueues.Queue queue) {
        Tenure tenure = hold.tenure;
        tenure.countHandoff();
        handoffs.increment();
        // Asked before the tenure is left for the next caller, who may release it at once: the
        // release then waits for the answer, or gives it (see Tenure.unlock).
        CompletableFuture<Boolean> check = handoffOrder == HandoffOrder.CONFIRM_FIRST ? tenure.confirm() : null;
        hold.takeTurn();
        queue.handOver(tenure);
        localQueues.leave(hold.name, queue);
        if (check == null) {
            check = tenure.confirm();
        }
        FlightEvents.held(hold.recording, hold, "handed on");
        return check.handle((held, error) -> {
            DistlockException failure = LockErrors.confirmed(store, hold.name, held, error);
            if (failure == null) {
                events.released(hold);
                return null;
            }
            tenure.markBroken();
            if (failure instanceof LockLostException) {
                events.lost(hold);
            }
            return reported(failure);
        });
    }

    /** Everyone queued for the key gave up after the lock was left for them: back to the backend with it. */
    private void releaseAbandoned(Tenure tenure) {
        unlock(tenure).whenComplete((ignored, error) -> {
            if (error != null) {
                LOG.log(System.Logger.Level.DEBUG, "Releasing lock '" + tenure.name + "' nobody was left to take: "
                        + LockErrors.failureOf(error).getMessage());
            }
        });
    }
}
