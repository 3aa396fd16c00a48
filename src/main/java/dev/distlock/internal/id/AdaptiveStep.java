package dev.distlock.internal.id;

/**
 * The size of a {@link SegmentIdGenerator}'s next lease, following the rate: a range used up in
 * less than half the target period doubles it, one that lasted more than twice as long halves it.
 */
final class AdaptiveStep {

    private final SegmentIdGenerator.Settings settings;
    private volatile long step;

    AdaptiveStep(SegmentIdGenerator.Settings settings) {
        this.settings = settings;
        this.step = settings.initialStep();
    }

    long get() {
        return step;
    }

    /** Adapts to how long {@code segment} lasted; called by one thread at a time. */
    void usedUp(Segment segment) {
        long lasted = System.nanoTime() - segment.leasedAtNanos;
        if (segment.spare) {
            // A spare is whatever a closed generator left, not this step: a small one says little about
            // the rate, and a large one is judged by how long a whole step would have lasted at its rate.
            if (segment.size < step / 2) {
                return;
            }
            lasted = (long) ((double) lasted * step / segment.size);
        }
        long target = settings.targetPeriod().toNanos();
        if (lasted < target / 2 && step < settings.maxStep()) {
            step = Math.min(settings.maxStep(), step * 2);
        } else if (lasted > target * 2 && step > settings.minStep()) {
            step = Math.max(settings.minStep(), step / 2);
        }
    }
}
