package dev.distlock.testkit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A critical section that notices when it is not alone: each {@link #section()} counts the callers
 * inside, and a second one inside is a violation; it also reads a plain counter, pauses, and writes
 * it back plus one, so that two holders at once lose an update even when the count misses them.
 * A test runs its sections under the lock under test and asserts {@link #violations()} is 0 and
 * {@link #count()} equals the sections run; its twin runs them with no lock and must see either fail.
 */
public final class OverlapDetector {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger violations = new AtomicInteger();
    private final AtomicLong sections = new AtomicLong();
    private final long pauseNanos;
    /** Deliberately not atomic: the lock under test is what makes its read-modify-write safe. */
    private long count;

    /** Sections that pause 200 µs between reading and writing the counter. */
    public OverlapDetector() {
        this(200_000);
    }

    /** @param pauseNanos how long a section holds between read and write: the window a second holder needs */
    public OverlapDetector(long pauseNanos) {
        this.pauseNanos = pauseNanos;
    }

    /** One critical section. */
    public void section() {
        section(() -> { });
    }

    /**
     * One critical section that also runs {@code work} between reading and writing the counter,
     * after the pause: work that widens the window (a yield) or that must happen while inside.
     */
    public void section(Runnable work) {
        if (inside.incrementAndGet() != 1) {
            violations.incrementAndGet();
        }
        long read = count;
        if (pauseNanos > 0) {
            LockSupport.parkNanos(pauseNanos);
        }
        work.run();
        count = read + 1;
        sections.incrementAndGet();
        inside.decrementAndGet();
    }

    /** Times a section found another caller inside. */
    public int violations() {
        return violations.get();
    }

    /** The counter the sections incremented; less than {@link #sections()} when updates were lost. */
    public long count() {
        return count;
    }

    /** How many sections ran. */
    public long sections() {
        return sections.get();
    }

    /** Whether the sections ran alone: no violation and no lost update. */
    public boolean exact() {
        return violations() == 0 && count() == sections();
    }

    @Override
    public String toString() {
        return "sections=" + sections() + " count=" + count() + " violations=" + violations();
    }
}
