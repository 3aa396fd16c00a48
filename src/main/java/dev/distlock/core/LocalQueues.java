package dev.distlock.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Contenders for the same exclusive key inside one JVM wait here, in arrival order, so that only
 * one of them at a time waits in Redis: the others would each subscribe, be woken and retry,
 * costing round trips without getting the lock any sooner. A permit, not a thread-owned lock,
 * because a {@code CompletionStage} releases from another thread. Entries exist only while
 * someone uses them, so the map does not grow with the number of keys ever locked.
 */
final class LocalQueues {

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    /** One key's queue. */
    static final class Entry {
        private final Semaphore permit = new Semaphore(1, true);
        /** Guarded by the map's compute: callers that entered and have not left. */
        private int users;
    }

    /**
     * Waits for this JVM's turn on {@code name}.
     *
     * @param waitNanos how long to wait; negative waits as long as it takes
     * @return the entry to {@link #leave} later, or {@code null} if the wait ran out
     * @throws InterruptedException with nothing held
     */
    Entry enter(String name, long waitNanos) throws InterruptedException {
        Entry entry = entries.compute(name, (key, current) -> {
            Entry used = current == null ? new Entry() : current;
            used.users++;
            return used;
        });
        boolean turn = false;
        try {
            if (waitNanos < 0) {
                entry.permit.acquire();
                turn = true;
            } else {
                turn = entry.permit.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
            }
        } finally {
            if (!turn) {
                forget(name, entry);
            }
        }
        return turn ? entry : null;
    }

    /** Gives the turn to the next local contender; from any thread. */
    void leave(String name, Entry entry) {
        entry.permit.release();
        forget(name, entry);
    }

    /** How many keys have a queue right now; for tests. */
    int size() {
        return entries.size();
    }

    private void forget(String name, Entry entry) {
        entries.computeIfPresent(name, (key, current) -> {
            if (current != entry) {
                return current;
            }
            current.users--;
            return current.users == 0 ? null : current;
        });
    }
}
