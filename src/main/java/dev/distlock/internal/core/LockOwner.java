package dev.distlock.internal.core;

import dev.distlock.LockMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who holds locks: one invocation chain, or one transaction. Nested calls of the same owner reenter
 * without asking Redis. Redis knows each held lock by its {@link Tenure}'s id, never by a thread
 * id, so a lock can be released from another thread (a completing {@code CompletionStage}).
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
    /** What made distlock doom this owner's transaction just before it committed; for the caller's exception. */
    private volatile String lostBeforeCommit;

    /**
     * Counts a nested acquisition if this owner holds {@code name} already.
     *
     * @return the hold to release later, or {@code null} if Redis must be asked
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
        hold.count++;
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

    synchronized void add(Hold hold) {
        holds.put(hold.name, hold);
    }

    /** Keeps the hold until the active transaction completes, even if every call is done with it. */
    synchronized void retain(Hold hold) {
        hold.retained = true;
    }

    /** @return true if the hold is no longer needed and must be released in Redis now */
    synchronized boolean exit(Hold hold) {
        hold.count--;
        if (hold.count > 0 || hold.retained) {
            return false;
        }
        holds.remove(hold.name);
        return true;
    }

    /** Every hold this owner has now. */
    synchronized List<Hold> holds() {
        return new ArrayList<>(holds.values());
    }

    void lostBeforeCommit(String problems) {
        lostBeforeCommit = problems;
    }

    /** What doomed this owner's transaction, once; {@code null} if nothing did. */
    String takeLostBeforeCommit() {
        String name = lostBeforeCommit;
        if (name != null) {
            lostBeforeCommit = null;
        }
        return name;
    }

    /** The transaction has completed: returns the retained holds no call needs any more. */
    synchronized List<Hold> transactionCompleted() {
        List<Hold> idle = new ArrayList<>();
        holds.values().removeIf(hold -> {
            hold.retained = false;
            return hold.count == 0 && idle.add(hold);
        });
        return idle;
    }
}
