package dev.distlock.jdbc;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.spi.BackendLease;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the tests of lost grants ask of the other nodes. */
final class LostGrants {

    /** A lock another node took, and how long after it began trying. */
    record Taken(BackendLease lease, long afterMillis) {
    }

    private LostGrants() {
    }

    /**
     * {@code node} tries for {@code name} until it has it, for at most {@code maxMillis}; a failure
     * of the database (a row the breaking connection still keeps locked) is tried again.
     *
     * @return the lease and when it came; {@code null} if it did not
     */
    static Taken take(JdbcBackend node, String name, long maxMillis) throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + TimeUnit.MILLISECONDS.toNanos(maxMillis);
        while (System.nanoTime() - deadline < 0) {
            try {
                BackendLease lease = node.acquire(name, LostGrantAnswerTest.WAITING, deadline);
                if (lease != null) {
                    return new Taken(lease, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                }
            } catch (LockServiceUnavailableException busy) {
                Thread.sleep(20);
            }
        }
        return null;
    }

    /** How long until {@code node} had {@code name} (released at once), -1 if not within {@code maxMillis}. */
    static long millisUntilTaken(JdbcBackend node, String name, long maxMillis) throws Exception {
        Taken taken = take(node, name, maxMillis);
        if (taken == null) {
            return -1;
        }
        taken.lease().release().get(5, TimeUnit.SECONDS);
        return taken.afterMillis();
    }

    /** {@code lease} stays held, and {@code third} cannot take its lock, for {@code millis}. */
    static void heldThroughout(BackendLease lease, JdbcBackend third, String name, long millis) throws Exception {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() - until < 0) {
            assertTrue(lease.isHeld().get(5, TimeUnit.SECONDS), "the other node's holder of '" + name + "' was removed");
            assertNull(third.acquire(name, LostGrantAnswerTest.WATCHDOG, System.nanoTime()), "a third node took the held '" + name + "'");
            Thread.sleep(250);
        }
    }
}
