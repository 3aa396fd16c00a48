package dev.distlock.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** The system clock plus an offset a test can move, as NTP or an operator would move a node's clock. */
public final class MovableClock extends Clock {

    private final AtomicLong offsetMillis = new AtomicLong();

    public MovableClock() {
    }

    public MovableClock(Duration offset) {
        offsetMillis.set(offset.toMillis());
    }

    public void moveBy(Duration step) {
        offsetMillis.addAndGet(step.toMillis());
    }

    @Override
    public long millis() {
        return System.currentTimeMillis() + offsetMillis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("ids need no zone");
    }
}
