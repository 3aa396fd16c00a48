package dev.distlock.example.shop.bench;

import java.util.Locale;

/**
 * distlock's exclusive lock during a storm, from the servers' {@code distlock_lock_hold_seconds}
 * timers: the mean time one order held it, and the share of the storm's time it was held (the
 * holds of one hot key follow each other, so 100 % means the next holder never waited for a free
 * lock: the work under the lock is the limit, not the lock's hand-over).
 *
 * @param meanMillis mean hold, in ms; negative when no distlock lock was held
 * @param busy       held time / storm time
 */
record LockHold(double meanMillis, double busy) {

    static final LockHold NONE = new LockHold(-1, 0);

    String text() {
        return meanMillis < 0 ? "–" : String.format(Locale.ROOT, "%.2f ms, %.0f %%", meanMillis, busy * 100);
    }
}
