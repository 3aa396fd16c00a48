package dev.distlock.internal.core;

import dev.distlock.LockMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who holds locks: one invocation chain — the locked calls nested in one another on a thread, and
 * the transactions they ran in, for as long as any of those holds a lock. Nested calls of the same
 * owner reenter without asking the backend. The backend knows each held lock by its
 * {@link Tenure}'s id, never by a thread id, so a lock can be released from another thread (a
 * completing {@code CompletionStage}, a transaction rolled back by its timeout).
 *
 * <p>Its monitor guards its holds' claims ({@link Hold#calls}, {@link Hold#transactions}): a hold
 * leaves the owner, to be released, when the last call and the last transaction claiming it are done.
 */
final class LockOwner {

    /**
     * Thread ids are small positive numbers; our ids start far above them, so a lock taken by
     * the application through the same client with a plain {@code RLock.lock()} never looks
     * like ours.
     */
    private static final AtomicLong NEXT_ID = new AtomicLong(1L << 62);

    final long id = nextId();
    private final Map<String, Hold> holds = new HashMap<>();

    /**
     * A call claims a hold this owner has already.
     *
     * @return the hold, now claimed by one more call, or {@code null} if the backend must be asked
     * @throws IllegalStateException on a read-to-write upgrade, which could only deadlock
     */
    synchronized Hold reenter(String name, LockMode mode, String site) {
        Hold hold = holds.get(name);
        if (hold == null) {
            return null;
        }
        if (hold.mode == LockMode.READ && mode == LockMode.WRITE) {
            throw new IllegalStateException(
                    "@WriteLocked on " + site + " is called while the same invocation holds the read lock "
                            + name + ": upgrading a read lock to a write lock would deadlock. Take the write "
                            + "lock in the outer method instead.");
        }
        hold.calls++;
        return hold;
    }

    /** A new id for an owner or a tenure, unique in this JVM. */
    static long nextId() {
        return NEXT_ID.incrementAndGet();
    }

    /** The token of the fenced hold on {@code name}; 0 if there is none. */
    synchronized long fencingToken(String name) {
        Hold hold = holds.get(name);
        return hold == null ? 0 : hold.tenure.fencingToken;
    }

    /** The token of the fenced hold taken last; 0 if there is none. */
    synchronized long latestFencingToken() {
        Hold latest = null;
        for (Hold hold : holds.values()) {
            if (hold.tenure.fencingToken != 0 && (latest == null || hold.acquiredAtNanos - latest.acquiredAtNanos > 0)) {
                latest = hold;
            }
        }
        return latest == null ? 0 : latest.tenure.fencingToken;
    }

    /** A hold just taken, claimed by the call that took it. */
    synchronized void add(Hold hold) {
        holds.put(hold.name, hold);
    }

    /** @return true if that was the hold's last claim: it is no longer the owner's, and must be released now */
    synchronized boolean callDone(Hold hold) {
        hold.calls--;
        return leaveIfUnclaimed(hold);
    }

    /** One more transaction claims the hold. */
    synchronized void claimForTransaction(Hold hold) {
        hold.transactions++;
    }

    /** @return true if that was the hold's last claim: it is no longer the owner's, and must be released now */
    synchronized boolean transactionDone(Hold hold) {
        hold.transactions--;
        return leaveIfUnclaimed(hold);
    }

    private boolean leaveIfUnclaimed(Hold hold) {
        if (!hold.unclaimed()) {
            return false;
        }
        holds.remove(hold.name, hold);
        return true;
    }

    /** Every hold this owner has now. */
    /** Every tenure this owner holds ends with its hold ({@link Tenure#endWithCurrentHold}). */
    synchronized void endTenuresWithTheirHolds() {
        holds.values().forEach(hold -> hold.tenure.endWithCurrentHold());
    }

    synchronized List<Hold> holds() {
        return new ArrayList<>(holds.values());
    }
}
