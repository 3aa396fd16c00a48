package dev.distlock.internal.core;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Contenders for the same exclusive key inside one JVM wait here, in arrival order, so that only
 * one of them at a time deals with the backend: the others would each subscribe, be woken and retry,
 * costing round trips without getting the lock any sooner. A {@link Turn}, not a thread-owned
 * lock, because a {@code CompletionStage} releases from another thread.
 *
 * <p>A holder that finishes while others wait may leave its {@link Tenure} in the entry: the next
 * to get the permit takes it and holds the lock without a round trip. If everyone waiting
 * gives up first, the tenure is passed to {@code abandoned} to be released in the backend.
 *
 * <p>Entries exist only while someone uses them, so the map does not grow with the number of keys
 * ever locked.
 */
final class LocalQueues {

    private final ConcurrentHashMap<String, Queue> entries = new ConcurrentHashMap<>();
    private final Consumer<Tenure> abandoned;

    LocalQueues(Consumer<Tenure> abandoned) {
        this.abandoned = abandoned;
    }

    /** One key's queue. */
    static final class Queue {
        private final Turn permit = new Turn();
        private final AtomicReference<Tenure> handedOver = new AtomicReference<>();
        /** When the tenure in {@link #handedOver} was left there ({@link System#nanoTime()}). */
        private volatile long handedOverAtNanos;
        /** Written only inside the map's compute: callers that entered and have not left. */
        private volatile int users;
        /**
         * Set by a holder that gave the lock back to the backend although callers here still wanted it,
         * so that a caller waiting in another JVM gets it: until then, no caller here asks the backend.
         */
        private volatile long yieldUntilNanos;

        /** Whether someone besides the permit's holder is queued or about to be. */
        boolean othersWaiting() {
            return users > 1;
        }

        /** The JVM gave the lock back although callers here wanted it: they hold off for {@code nanos}. */
        void yieldFor(long nanos) {
            yieldUntilNanos = System.nanoTime() + nanos;
        }

        /** Until when ({@link System#nanoTime()}) callers here hold off; in the past when they need not. */
        long yieldUntilNanos() {
            return yieldUntilNanos;
        }

        /** Leaves the lock for the next holder of the permit; call just before {@link #leave}. */
        void handOver(Tenure tenure) {
            handedOverAtNanos = System.nanoTime();
            handedOver.set(tenure);
        }

        /** When the last tenure was handed over; read after {@link #takeHandedOver} returned it. */
        long handedOverAtNanos() {
            return handedOverAtNanos;
        }

        /** The tenure the previous holder left, now the caller's; {@code null} if there is none. */
        Tenure takeHandedOver() {
            return handedOver.getAndSet(null);
        }
    }

    /**
     * Waits for this JVM's turn on {@code name}.
     *
     * @param waitNanos how long to wait; negative waits as long as it takes
     * @return the entry to {@link #leave} later, or {@code null} if the wait ran out
     * @throws InterruptedException with nothing held
     */
    Queue enter(String name, long waitNanos) throws InterruptedException {
        Queue entry = entries.compute(name, (key, current) -> {
            Queue used = current == null ? new Queue() : current;
            used.users++;
            return used;
        });
        boolean queue = false;
        try {
            if (waitNanos < 0) {
                entry.permit.take();
                queue = true;
            } else {
                queue = entry.permit.take(waitNanos);
            }
        } finally {
            if (!queue) {
                forget(name, entry);
            }
        }
        return queue ? entry : null;
    }

    /**
     * Gives the turn to the next local contender; from any thread. The caller stops counting as a
     * user before the permit goes, so the next holder sees only real waiters.
     */
    void leave(String name, Queue entry) {
        forget(name, entry);
        entry.permit.give();
    }

    /**
     * For {@link Inspection}: how many callers have entered each queue whose name starts with
     * {@code namePrefix} and not left (the holder here, if any, counts among them).
     */
    Map<String, Integer> users(String namePrefix) {
        Map<String, Integer> users = new HashMap<>();
        entries.forEach((name, entry) -> {
            if (name.startsWith(namePrefix) && entry.users > 0) {
                users.put(name, entry.users);
            }
        });
        return users;
    }

    /** How many keys have a queue right now; for tests. */
    int size() {
        return entries.size();
    }

    private void forget(String name, Queue entry) {
        boolean[] unused = {false};
        entries.computeIfPresent(name, (key, current) -> {
            if (current != entry) {
                return current;
            }
            current.users--;
            unused[0] = current.users == 0;
            return unused[0] ? null : current;
        });
        if (unused[0]) {
            // Nobody can take it any more: the lock goes back to the backend.
            Tenure left = entry.takeHandedOver();
            if (left != null) {
                abandoned.accept(left);
            }
        }
    }
}
