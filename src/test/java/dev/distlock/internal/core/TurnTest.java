package dev.distlock.internal.core;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A key's turn in one JVM: fair, given back from any thread, and each waiter woken once per turn. */
@Timeout(30)
class TurnTest {

    private static final int WAITERS = 8;
    /** How long each waiter keeps the turn: long enough for a waiter woken for nothing to park again. */
    private static final long HOLD_MILLIS = 5;

    @Test
    void anyThreadMayGiveTheTurnBack() throws Exception {
        Turn turn = new Turn();
        turn.take();
        Thread other = new Thread(turn::give);
        other.start();
        other.join();
        assertTrue(turn.take(0), "free again");
    }

    @Test
    void waitersGetTheTurnInTheOrderTheyCame() throws Exception {
        Turn turn = new Turn();
        turn.take();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Thread> waiters = queue(turn, WAITERS, index -> {
            order.add(index);
            turn.give();
        });
        turn.give();
        for (Thread waiter : waiters) {
            waiter.join();
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), order);
    }

    @Test
    void aTimedTakeGivesUpAndAZeroWaitTriesOnce() throws Exception {
        Turn turn = new Turn();
        turn.take();
        assertFalse(turn.take(0));
        assertFalse(turn.take(TimeUnit.MILLISECONDS.toNanos(20)));
        turn.give();
        assertTrue(turn.take(0));
    }

    @Test
    void anInterruptedWaiterTakesNothing() throws Exception {
        Turn turn = new Turn();
        turn.take();
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            try {
                turn.take();
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        waiter.start();
        awaitParked(waiter);
        waiter.interrupt();
        waiter.join();
        assertTrue(interrupted.get());
        turn.give();
        assertTrue(turn.take(0), "the interrupted waiter did not take the turn");
    }

    @Test
    void givingBackATurnNobodyTookFails() {
        assertThrows(IllegalStateException.class, new Turn()::give);
    }

    /**
     * Eight waiters queued, the turn passed down the line: each waiter parks once, and is woken
     * once, when the turn is its own. Counted with the JVM's own park events.
     */
    @Test
    void eachWaiterSleepsOncePerTurn(@TempDir Path directory) throws Exception {
        Turn turn = new Turn();
        Map<String, Integer> parks = parksWhilePassedDown(directory, "turn-waiter-", turn::take, turn::give);
        assertEquals(WAITERS, parks.size(), "every waiter parked: " + parks);
        parks.forEach((waiter, count) -> assertEquals(1, count, waiter + " parked " + count + " times: " + parks));
    }

    /**
     * Twin: a fair semaphore of one permit, what the queue used before. In its shared mode a waiter
     * that gets the permit wakes the next one, which finds none and parks again.
     */
    @Test
    void aSemaphoreWakesWaitersForNothing(@TempDir Path directory) throws Exception {
        Semaphore permit = new Semaphore(1, true);
        Map<String, Integer> parks = parksWhilePassedDown(directory, "semaphore-waiter-", permit::acquire, permit::release);
        assertTrue(parks.values().stream().mapToInt(Integer::intValue).sum() > WAITERS, "more parks than turns: " + parks);
    }

    private interface Take {
        void take() throws InterruptedException;
    }

    /** Parks of each waiter, by thread name, while the turn goes down a line of {@link #WAITERS}. */
    private static Map<String, Integer> parksWhilePassedDown(Path directory, String names, Take take, Runnable give)
            throws Exception {
        Map<String, Integer> parks = new TreeMap<>();
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ThreadPark").withThreshold(java.time.Duration.ZERO);
            recording.start();
            take.take();
            List<Thread> waiters = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                Thread waiter = new Thread(() -> {
                    try {
                        take.take();
                        Thread.sleep(HOLD_MILLIS);
                        give.run();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, names + i);
                waiter.start();
                awaitParked(waiter);
                waiters.add(waiter);
            }
            give.run();
            for (Thread waiter : waiters) {
                waiter.join();
            }
            recording.stop();
            Path file = directory.resolve("parks.jfr");
            recording.dump(file);
            for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
                String thread = event.getThread() == null ? "" : event.getThread().getJavaName();
                if (event.getEventType().getName().equals("jdk.ThreadPark") && thread != null && thread.startsWith(names)) {
                    parks.merge(thread, 1, Integer::sum);
                }
            }
        }
        return parks;
    }

    private interface Body {
        void run(int index) throws InterruptedException;
    }

    /** Starts {@code count} threads that each wait for the turn, in order, then run {@code body}. */
    private static List<Thread> queue(Turn turn, int count, Body body) throws InterruptedException {
        List<Thread> waiters = new ArrayList<>();
        CountDownLatch started = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            int index = i;
            Thread waiter = new Thread(() -> {
                started.countDown();
                try {
                    turn.take();
                    body.run(index);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "waiter-" + i);
            waiter.start();
            awaitParked(waiter);
            waiters.add(waiter);
        }
        assertTrue(started.await(5, TimeUnit.SECONDS));
        return waiters;
    }

    private static void awaitParked(Thread thread) throws InterruptedException {
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
    }
}
