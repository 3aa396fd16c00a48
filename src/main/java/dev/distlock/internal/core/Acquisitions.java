package dev.distlock.internal.core;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;

import dev.distlock.DistlockException;
import dev.distlock.LeaseProof;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.OnTimeout;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Takes locks for an owner: reentry first, then this JVM's queue for the key (exclusive and write
 * locks), where a lock may arrive handed on by the previous local holder, and only then the backend.
 * Several keys are taken in sorted order, so that two calls needing the same keys cannot deadlock.
 */
final class Acquisitions {

    private static final System.Logger LOG = System.getLogger(Acquisitions.class.getName());

    private final LockBackend backend;
    private final LeaseWatch leaseWatch;
    private final Releases releases;
    private final LockEvents events;
    private final LeaseProof leaseProof;
    /** {@code prefix:namespace:} of each mode, by ordinal: built once, not per call. */
    private final String[] namePrefixes;
    /** The longest name the backend keeps ({@link LockBackend#maxNameLength()}). */
    private final int maxNameLength;

    Acquisitions(String keyPrefix, LockBackend backend, LeaseWatch leaseWatch, Releases releases, LockEvents events,
                 LeaseProof leaseProof) {
        this.namePrefixes = new String[LockMode.values().length];
        for (LockMode mode : LockMode.values()) {
            namePrefixes[mode.ordinal()] = LockNames.namespace(keyPrefix, mode);
        }
        this.backend = backend;
        this.maxNameLength = backend.maxNameLength();
        this.leaseWatch = leaseWatch;
        this.releases = releases;
        this.events = events;
        this.leaseProof = leaseProof;
    }

    /** The name of a lock ({@link LockNames}), from the prefixes built once. */
    String name(LockMode mode, String key) {
        return namePrefixes[mode.ordinal()].concat(key);
    }

    /**
     * @param trace told how each lock came, or of the timeout; {@code null} when the call is not traced
     * @return the holds taken, in order, or {@code null} if the call is to be skipped
     */
    List<Hold> acquireAll(LockOwner owner, LockPolicy policy, List<String> keys, LockTracing.Trace trace) {
        Collection<String> names;
        if (keys.size() == 1) {
            names = List.of(checked(name(policy.mode(), keys.get(0)), policy));
        } else {
            names = new TreeSet<>();
            for (String key : keys) {
                names.add(checked(name(policy.mode(), key), policy));
            }
        }
        long deadline = policy.waitsForever() ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(policy.waitMillis());
        List<Hold> taken = new ArrayList<>(names.size());
        try {
            for (String name : names) {
                Hold hold = owner.reenter(name, policy.mode(), policy.site());
                LockTracing.Source source = LockTracing.Source.REENTERED;
                if (hold == null) {
                    hold = acquire(owner, policy, name, deadline);
                    if (hold == null) {
                        if (trace != null) {
                            trace.timedOut();
                        }
                        releases.await(releases.callDone(taken));
                        if (policy.onTimeout() == OnTimeout.SKIP) {
                            return null;
                        }
                        throw new LockTimeoutException(name, "Could not acquire lock '" + name + "' within "
                                + policy.waitMillis() + " ms (" + policy.mode().annotation() + ".waitTime on "
                                + policy.site() + "); another holder still has it. Retry later, or raise waitTime.");
                    }
                    owner.add(hold);
                    source = hold.handedOver ? LockTracing.Source.LOCAL : LockTracing.Source.STORE;
                }
                taken.add(hold);
                if (trace != null) {
                    trace.took(source, hold.tenure.fencingToken);
                }
            }
            return taken;
        } catch (RuntimeException | Error e) {
            DistlockException releaseFailure = releases.await(releases.callDone(taken));
            if (releaseFailure != null) {
                e.addSuppressed(releaseFailure);
            }
            throw e;
        }
    }

    /** A name the backend keeps; otherwise the call is refused before anything is asked of the backend. */
    private String checked(String name, LockPolicy policy) {
        if (name.length() > maxNameLength) {
            throw new IllegalArgumentException("The lock name '" + name.substring(0, 60) + "…' of " + policy.site() + " is "
                    + name.length() + " characters long with its prefix; " + backend.displayName() + " keeps names of at most "
                    + maxNameLength + ": shorten the key (or distlock.key-prefix). The method did not run.");
        }
        return name;
    }

    /** @return the new hold, or {@code null} if the wait ran out */
    private Hold acquire(LockOwner owner, LockPolicy policy, String name, long deadline) {
        long startedNanos = System.nanoTime();
        Object recording = FlightEvents.waitStarted();
        if (policy.mode() == LockMode.READ) {
            return fromBackend(owner, policy, name, deadline, startedNanos, recording);
        }
        LocalQueues.Queue queue;
        try {
            queue = releases.localQueues.enter(name, policy.waitsForever() ? -1 : Math.max(0, deadline - System.nanoTime()));
        } catch (InterruptedException e) {
            throw LockErrors.interrupted(name, e);
        }
        if (queue == null) {
            events.timedOut(name, policy.site(), policy.mode(), System.nanoTime() - startedNanos);
            FlightEvents.waited(recording, name, policy.site(), policy.mode(), "timed out", 0);
            return null;
        }
        Hold hold = null;
        try {
            Tenure passedOn = queue.takeHandedOver();
            if (passedOn != null) {
                // A fenced caller may take a fenced tenure: the token belongs to the tenure, and a
                // store refuses every write made under it once a later tenure has written. A tenure
                // found lost (or that could not be confirmed) since it was left here is never taken.
                if (policy.watchdog() && (!policy.fenced() || passedOn.fencingToken != 0) && !passedOn.isBroken()) {
                    long now = System.nanoTime();
                    events.acquired(name, policy.site(), policy.mode(), now - startedNanos);
                    FlightEvents.waited(recording, name, policy.site(), policy.mode(), "handed over",
                            now - queue.handedOverAtNanos());
                    hold = new Hold(owner, name, policy, passedOn, true);
                    return hold;
                }
                // This caller asked for a fixed lease, or for a token the tenure does not have, or the
                // tenure is broken: the lock goes back to the backend and is taken anew.
                DistlockException failure = releases.await(releases.unlock(passedOn));
                if (failure != null) {
                    LOG.log(System.Logger.Level.DEBUG, "Releasing a lock passed on to a fixed-lease caller: " + failure.getMessage());
                }
            }
            yieldToOtherJvms(queue, policy, deadline);
            hold = fromBackend(owner, policy, name, deadline, startedNanos, recording);
            return hold;
        } finally {
            if (hold == null) {
                releases.localQueues.leave(name, queue);
            } else {
                hold.keepTurnIn(queue);
            }
        }
    }

    /**
     * After this JVM gave a lock back only because the handoff bound was reached, its next caller
     * holds off for a moment, so that a caller woken in another JVM can take it.
     */
    private static void yieldToOtherJvms(LocalQueues.Queue queue, LockPolicy policy, long deadline) {
        long now = System.nanoTime();
        long pause = queue.yieldUntilNanos() - now;
        if (!policy.waitsForever()) {
            pause = Math.min(pause, deadline - now);
        }
        if (pause > 0) {
            LockSupport.parkNanos(pause);
        }
    }

    private Hold fromBackend(LockOwner owner, LockPolicy policy, String name, long deadline, long startedNanos, Object recording) {
        BackendLease lease;
        try {
            lease = backend.acquire(name, policy, deadline);
        } catch (InterruptedException e) {
            throw LockErrors.interrupted(name, e);
        }
        long waited = System.nanoTime() - startedNanos;
        if (lease == null) {
            events.timedOut(name, policy.site(), policy.mode(), waited);
            FlightEvents.waited(recording, name, policy.site(), policy.mode(), "timed out", 0);
            return null;
        }
        events.acquired(name, policy.site(), policy.mode(), waited);
        FlightEvents.waited(recording, name, policy.site(), policy.mode(), "from store", 0);
        boolean provable = switch (leaseProof) {
            case NONE -> false;
            case FENCED -> lease.fencingToken() != 0;
            case ALL -> true;
        };
        Tenure tenure = new Tenure(leaseWatch, name, lease, provable);
        leaseWatch.watch(tenure, backend.leaseMillis(policy), () -> events.lost(tenure, name, policy.site(), policy.mode()));
        return new Hold(owner, name, policy, tenure, false);
    }
}
