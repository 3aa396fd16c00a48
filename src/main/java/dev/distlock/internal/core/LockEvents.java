package dev.distlock.internal.core;

import dev.distlock.LockListener;
import dev.distlock.LockMode;

/** Tells the engine's {@link LockListener}; a listener that fails never changes what the caller sees. */
final class LockEvents {

    private static final System.Logger LOG = System.getLogger(LockEvents.class.getName());

    final LockListener listener;

    LockEvents(LockListener listener) {
        this.listener = listener;
    }

    void acquired(String name, String site, LockMode mode, long waitedNanos) {
        notify(() -> listener.acquired(name, site, mode, waitedNanos));
    }

    void timedOut(String name, String site, LockMode mode, long waitedNanos) {
        notify(() -> listener.timedOut(name, site, mode, waitedNanos));
    }

    void released(Hold hold) {
        notify(() -> listener.released(hold.name, hold.site, hold.mode, System.nanoTime() - hold.acquiredAtNanos));
    }

    /** The hold's lock was lost: told once per tenure, however many calls learn it. */
    void lost(Hold hold) {
        lost(hold.tenure, hold.name, hold.site, hold.mode);
    }

    void lost(Tenure tenure, String name, String site, LockMode mode) {
        if (tenure.markLossReported()) {
            notify(() -> listener.lost(name, site, mode));
        }
    }

    private static void notify(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "A LockListener failed; ignored", e);
        }
    }
}
