package dev.distlock.testkit;

import java.util.function.Supplier;

/**
 * A server a test JVM starts on first use and keeps: later callers get the same one, and after a
 * failed start they get its exception at once, without waiting for another try that would fail the
 * same way.
 */
final class StartedOnce<T> {

    private final Supplier<T> start;
    private T started;
    private RuntimeException failure;

    StartedOnce(Supplier<T> start) {
        this.start = start;
    }

    synchronized T get() {
        if (started == null && failure == null) {
            try {
                started = start.get();
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
        return started;
    }
}
