package dev.distlock.internal.core;

import dev.distlock.DistlockException;
import dev.distlock.LockLostException;
import dev.distlock.LockServiceUnavailableException;

import java.util.concurrent.CompletableFuture;
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

    /** What a failed release means for the caller: the lock was lost, or the store could not be told. */
    static DistlockException releaseFailure(String store, Throwable error, String name) {
        Throwable cause = unwrap(error);
        if (cause instanceof IllegalMonitorStateException) {
            return lost(store, name);
        }
        return unavailable(store, "release", name, cause);
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

    /** Waits for a release without giving up on interruption: a lock must not be left behind. */
    static DistlockException await(CompletableFuture<DistlockException> release) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return release.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    return new DistlockException("Release failed unexpectedly", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
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
