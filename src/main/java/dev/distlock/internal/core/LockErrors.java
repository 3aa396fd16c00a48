package dev.distlock.internal.core;

import dev.distlock.DistlockException;
import dev.distlock.LockLostException;
import dev.distlock.LockServiceUnavailableException;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What the engine tells callers when a lock fails them, worded once for every backend. */
final class LockErrors {

    private LockErrors() {
    }

    static LockLostException lost(String store, String name) {
        return new LockLostException(name, "Lock '" + name + "' was no longer held when released: "
                + "its lease expired or " + store + " lost it, so the method may not have run alone. "
                + "Use the watchdog lease (leaseTime -1) or a lease longer than the work.");
    }

    /**
     * The store failed while acquiring ({@code "acquire"}: the method did not run) or releasing
     * (the lock ends with its lease).
     */
    static LockServiceUnavailableException unavailable(String store, String action, String name, Throwable cause) {
        if (cause instanceof LockServiceUnavailableException known) {
            return known;
        }
        String consequence = action.equals("acquire")
                ? "the method did not run."
                : "the lock expires on its own at the end of its lease.";
        return new LockServiceUnavailableException(
                "Could not " + action + " lock '" + name + "': " + store + " failed (" + cause + "); " + consequence, cause);
    }

    /**
     * What the backend's answer to a release means for the caller, the one place a backend's "not
     * held" becomes {@link LockLostException}: {@code null} when it released the lock, lost when it
     * no longer held it, unavailable when it could not be told.
     */
    static DistlockException released(String store, String name, Boolean wasHeld, Throwable error) {
        if (error != null) {
            return unavailable(store, "release", name, unwrap(error));
        }
        return Boolean.TRUE.equals(wasHeld) ? null : lost(store, name);
    }

    /**
     * The same for a holder that passed the lock on in this JVM and asked the backend whether it
     * still held it when it finished.
     */
    static DistlockException confirmed(String store, String name, Boolean held, Throwable error) {
        if (error != null) {
            Throwable cause = unwrap(error);
            return new LockServiceUnavailableException("Could not confirm that lock '" + name
                    + "' was still held when the method finished: " + store + " failed (" + cause
                    + "); the method may not have run alone.", cause);
        }
        return Boolean.TRUE.equals(held) ? null : lost(store, name);
    }

    static DistlockException interrupted(String name, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new DistlockException("Interrupted while waiting for lock '" + name + "'; the method did not run.", e);
    }

    static DistlockException firstWithSuppressed(DistlockException first, DistlockException next) {
        if (first == null) {
            return next;
        }
        if (next != null) {
            first.addSuppressed(next);
        }
        return first;
    }

    /** distlock was closed while a caller waited for the backend to answer its release. */
    static LockServiceUnavailableException closedWhileReleasing(String store) {
        return new LockServiceUnavailableException("distlock was closed (the application is stopping) while this call waited for "
                + store + " to answer its release; the lock ends on its own at the end of its lease.", null);
    }

    /** What a release's stage failed with, as the caller is to see it; {@code null} when it did not fail. */
    static DistlockException failureOf(Throwable error) {
        if (error == null) {
            return null;
        }
        Throwable cause = unwrap(error);
        return cause instanceof DistlockException known ? known : new DistlockException("Release failed unexpectedly", cause);
    }

    static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
