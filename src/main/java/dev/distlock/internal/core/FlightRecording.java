package dev.distlock.internal.core;

import dev.distlock.LockMode;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Threshold;
import jdk.jfr.Timespan;

/**
 * The engine's Java Flight Recorder events and their recording, apart from {@link FlightEvents} so
 * that only a runtime whose application sees {@code jdk.jfr} ever loads this class.
 */
final class FlightRecording {

    private static final EventType WAIT = EventType.getEventType(LockWait.class);
    private static final EventType HOLD = EventType.getEventType(LockHold.class);
    private static final EventType CHECK = EventType.getEventType(CommitCheck.class);
    private static final EventType TRANSACTION = EventType.getEventType(LockedTransaction.class);
    private static final EventType BATCH = EventType.getEventType(CombinedBatch.class);

    static Object batchStarted() {
        if (!BATCH.isEnabled()) {
            return null;
        }
        CombinedBatch event = new CombinedBatch();
        event.begin();
        return event;
    }

    static void batchEnded(Object started, String name, String site, int size, String outcome) {
        CombinedBatch event = (CombinedBatch) started;
        event.end();
        if (event.shouldCommit()) {
            event.lock = name;
            event.site = site;
            event.size = size;
            event.outcome = outcome;
            event.commit();
        }
    }

    static boolean transactionsRecorded() {
        return TRANSACTION.isEnabled();
    }

    static Object transactionStarted() {
        if (!TRANSACTION.isEnabled()) {
            return null;
        }
        LockedTransaction event = new LockedTransaction();
        event.begin();
        return event;
    }

    static void transactionEnded(Object started, int locks) {
        LockedTransaction event = (LockedTransaction) started;
        event.end();
        if (event.shouldCommit()) {
            event.locks = locks;
            event.commit();
        }
    }

    static Object waitStarted() {
        if (!WAIT.isEnabled()) {
            return null;
        }
        LockWait event = new LockWait();
        event.begin();
        return event;
    }

    static void waited(Object started, String name, String site, LockMode mode, String outcome, long handoverNanos) {
        LockWait event = (LockWait) started;
        event.end();
        if (event.shouldCommit()) {
            event.lock = name;
            event.site = site;
            event.mode = mode.name();
            event.outcome = outcome;
            event.handover = handoverNanos;
            event.commit();
        }
    }

    static Object holdStarted() {
        if (!HOLD.isEnabled()) {
            return null;
        }
        LockHold event = new LockHold();
        event.begin();
        return event;
    }

    static void held(Object started, Hold hold, String release) {
        LockHold event = (LockHold) started;
        event.end();
        if (event.shouldCommit()) {
            event.lock = hold.name;
            event.site = hold.site;
            event.mode = hold.mode.name();
            event.release = release;
            event.commit();
        }
    }

    static Object checkStarted() {
        if (!CHECK.isEnabled()) {
            return null;
        }
        CommitCheck event = new CommitCheck();
        event.begin();
        return event;
    }

    static void checked(Object started, int locks, String proof, boolean held) {
        CommitCheck event = (CommitCheck) started;
        event.end();
        if (event.shouldCommit()) {
            event.locks = locks;
            event.proof = proof;
            event.held = held;
            event.commit();
        }
    }

    @Name("distlock.LockWait")
    @Label("Lock Wait")
    @Category({"distlock", "Locks"})
    @Description("A call waiting for a lock, from asking to holding it (or giving up)")
    @Threshold("10 ms")
    static final class LockWait extends Event {
        @Label("Lock")
        String lock;
        @Label("Site")
        @Description("The locked method or programmatic call")
        String site;
        @Label("Mode")
        String mode;
        @Label("Outcome")
        @Description("handed over (by the previous holder in this JVM), from store, or timed out")
        String outcome;
        @Label("Hand-over")
        @Description("For a lock handed over in this JVM: from the hand-over to this caller running")
        @Timespan(Timespan.NANOSECONDS)
        long handover;
    }

    @Name("distlock.LockHold")
    @Label("Lock Hold")
    @Category({"distlock", "Locks"})
    @Description("A lock held by one call (or transaction), from getting it to giving it on")
    @Threshold("10 ms")
    static final class LockHold extends Event {
        @Label("Lock")
        String lock;
        @Label("Site")
        String site;
        @Label("Mode")
        String mode;
        @Label("Release")
        @Description("handed on (to the next caller in this JVM) or released in store")
        String release;
    }

    @Name("distlock.LockedTransaction")
    @Label("Locked Transaction")
    @Category({"distlock", "Transactions"})
    @Description("A transaction under distlock's locks, from when distlock first saw it active (just after it began, "
            + "inside a locked method; or when a lock was taken inside it) to its completion")
    @Threshold("10 ms")
    static final class LockedTransaction extends Event {
        @Label("Locks")
        int locks;
    }

    @Name("distlock.CombinedBatch")
    @Label("Combined Batch")
    @Category({"distlock", "Locks"})
    @Description("A batch of combined calls, on its leader's thread: from taking the waiting calls, holding the lock, to the"
            + " lock's release after the batch method returned (and its transaction completed)")
    @Threshold("10 ms")
    static final class CombinedBatch extends Event {
        @Label("Lock")
        String lock;
        @Label("Site")
        String site;
        @Label("Size")
        @Description("The calls the batch served")
        int size;
        @Label("Outcome")
        @Description("answered (each call its own answer), failed (every call), or took effect, release failed")
        String outcome;
    }

    @Name("distlock.CommitCheck")
    @Label("Commit Check")
    @Category({"distlock", "Transactions"})
    @Description("The check, just before a transaction commits, that it still holds its locks")
    @Threshold("1 ms")
    static final class CommitCheck extends Event {
        @Label("Locks")
        int locks;
        @Label("Proof")
        @Description("lease: shown held by the lease's local clock; store: asked the store")
        String proof;
        @Label("Held")
        boolean held;
    }
}
