package dev.distlock.internal.core;

import dev.distlock.LockListener;
import dev.distlock.LockMode;

/**
 * Tells the engine's {@link LockListener}; a listener that fails never changes what the caller sees.
 *
 * <p>Each event calls the listener from a call site of its own, not through one helper taking a
 * lambda: such a helper's single call site sees every kind of event, and the JIT compiled it with
 * the listeners of the two common kinds inlined into one method of over 70 KB of machine code, to
 * throw away and compile again (seconds of a core each time on a busy 2-core server) whenever a rare
 * kind (a timeout, a loss) came through it.
 */
final class LockEvents {

    private static final System.Logger LOG = System.getLogger(LockEvents.class.getName());

    final LockListener listener;

    LockEvents(LockListener listener) {
        this.listener = listener;
    }

    void acquired(String name, String site, LockMode mode, long waitedNanos) {
        try {
            listener.acquired(name, site, mode, waitedNanos);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    void timedOut(String name, String site, LockMode mode, long waitedNanos) {
        try {
            listener.timedOut(name, site, mode, waitedNanos);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    void released(Hold hold) {
        try {
            listener.released(hold.name, hold.site, hold.mode, System.nanoTime() - hold.acquiredAtNanos);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /** The hold's lock was lost: told once per tenure, however many calls learn it. */
    void lost(Hold hold) {
        lost(hold.tenure, hold.name, hold.site, hold.mode);
    }

    void lost(Tenure tenure, String name, String site, LockMode mode) {
        if (tenure.markLossReported()) {
            try {
                listener.lost(name, site, mode);
            } catch (RuntimeException e) {
                failed(e);
            }
        }
    }

    private static void failed(RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "A LockListener failed; ignored", e);
    }
}
