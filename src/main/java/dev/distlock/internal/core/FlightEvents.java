package dev.distlock.internal.core;

import dev.distlock.LockMode;

/**
 * What the engine tells Java Flight Recorder: how long a call waited for a lock (and, when the
 * lock was handed over in this JVM, how long the next caller took to run after it was), how long
 * it held it, what the check before a commit cost, how long a transaction under a lock took to
 * complete, and each batch of combined calls with its size. For finding where a locked call's time
 * goes with a tool made for it ({@code jcmd <pid> JFR.start}, {@code -XX:StartFlightRecording}),
 * without timers in the code. Waits and holds are recorded from 10 ms by default, checks from
 * 1 ms; a recording's settings can lower that to 0.
 *
 * <p>A runtime where the application cannot see the {@code jdk.jfr} module records nothing. When
 * no recording asks for an event, a call costs a volatile read.
 */
final class FlightEvents {

    /**
     * Whether this class's loader sees {@code jdk.jfr}: a JDK without the module, or a server whose
     * module system does not show it to the application (WildFly shows only what a deployment asks
     * for), records nothing and fails nothing.
     */
    private static final boolean PRESENT = recorderLoads();

    private FlightEvents() {
    }

    private static boolean recorderLoads() {
        try {
            Class.forName(FlightRecording.class.getName(), true, FlightEvents.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /** Ended by {@link #waited}; {@code null} when no recording wants waits. */
    static Object waitStarted() {
        return PRESENT ? FlightRecording.waitStarted() : null;
    }

    /**
     * @param started    what {@link #waitStarted} returned
     * @param outcome    {@code "handed over"}, {@code "from store"} or {@code "timed out"}
     * @param handoverNanos for a lock handed over in this JVM, the time from the hand-over to this
     *                   caller running; otherwise 0
     */
    static void waited(Object started, String name, String site, LockMode mode, String outcome, long handoverNanos) {
        if (started != null) {
            FlightRecording.waited(started, name, site, mode, outcome, handoverNanos);
        }
    }

    /** Ended by {@link #held}; {@code null} when no recording wants holds. */
    static Object holdStarted() {
        return PRESENT ? FlightRecording.holdStarted() : null;
    }

    /** @param release {@code "handed on"} or {@code "released in store"} */
    static void held(Object started, Hold hold, String release) {
        if (started != null) {
            FlightRecording.held(started, hold, release);
        }
    }

    /** Whether a recording wants {@code distlock.LockedTransaction} events. */
    static boolean transactionsRecorded() {
        return PRESENT && FlightRecording.transactionsRecorded();
    }

    /** Ended by {@link #transactionEnded}; {@code null} when no recording wants transactions. */
    static Object transactionStarted() {
        return PRESENT ? FlightRecording.transactionStarted() : null;
    }

    /** @param locks how many locks the transaction held as it completed */
    static void transactionEnded(Object started, int locks) {
        if (started != null) {
            FlightRecording.transactionEnded(started, locks);
        }
    }

    /** Ended by {@link #checked}; {@code null} when no recording wants checks. */
    static Object checkStarted() {
        return PRESENT ? FlightRecording.checkStarted() : null;
    }

    /** @param proof how the locks were shown held: {@code "lease"} (locally) or {@code "store"} (asked) */
    static void checked(Object started, int locks, String proof, boolean held) {
        if (started != null) {
            FlightRecording.checked(started, locks, proof, held);
        }
    }

    /** Ended by {@link #batchEnded}; {@code null} when no recording wants combined batches. */
    static Object batchStarted() {
        return PRESENT ? FlightRecording.batchStarted() : null;
    }

    /** @param outcome {@code "answered"}, {@code "failed"} or {@code "took effect, release failed"} */
    static void batchEnded(Object started, String name, String site, int size, String outcome) {
        if (started != null) {
            FlightRecording.batchEnded(started, name, site, size, outcome);
        }
    }
}
