package dev.distlock.testkit;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Polling for a condition in tests. */
public final class Waits {

    private static final long POLL_MILLIS = 20;

    private Waits() {
    }

    /**
     * Sleeps {@code millis}; interrupted, it restores the thread's interrupt flag and throws
     * {@link IllegalStateException}.
     */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Polls {@code condition} every 20 ms until it holds; a condition that throws has not held yet.
     *
     * @return whether it held within {@code timeoutMillis}
     */
    public static boolean until(long timeoutMillis, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return true;
                }
            } catch (RuntimeException notYet) {
                // e.g. a node still starting; try again
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            sleep(POLL_MILLIS);
        }
    }
}
