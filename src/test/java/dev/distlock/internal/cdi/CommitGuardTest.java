package dev.distlock.internal.cdi;

import dev.distlock.LockLostException;
import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.Transaction;
import jakarta.transaction.Transactional;
import dev.distlock.transactions.Narayana;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The usual order, {@code @Locked} outside {@code @Transactional}: the transaction begins inside
 * the locked call. A lock lost while the method runs must not let its transaction commit: the
 * commit guard, just inside {@code @Transactional}, has the transaction checked just before it
 * commits, and it rolls back. The transaction manager is Narayana, with its own
 * {@code @Transactional}; Redis is real, and the loss is real: the lock's key is deleted from
 * Redis while the method runs, as Redis losing it would.
 */
class CommitGuardTest {

    @ApplicationScoped
    public static class Jobs {
        /** The transaction the last method ran in. */
        static volatile Transaction last;

        @Locked("job:{id}")
        @Transactional
        public String run(String id, Runnable body) {
            body.run();
            last = Narayana.current();
            return "done";
        }

        @WriteLocked("catalog:{id}")
        @Transactional
        public void reprice(String id, Runnable body) {
            body.run();
            last = Narayana.current();
        }

        @ReadLocked("catalog:{id}")
        @Transactional
        public void read(String id, Runnable body) {
            body.run();
            last = Narayana.current();
        }
    }

    @Test
    void aLockLostInsideATransactionBegunUnderItRollsTheTransactionBack() throws Exception {
        try (DistlockWeld weld = start(true)) {
            String key = lockKey(weld, "lock", "job:lost");
            LockLostException lost = assertThrows(LockLostException.class,
                    () -> weld.bean(Jobs.class).run("lost", () -> Probe.delete(key)));
            assertEquals(Status.STATUS_ROLLEDBACK, Jobs.last.getStatus());
            assertTrue(lost.rolledBack(), "the exception says nothing was committed: " + lost.getMessage());
            assertTrue(causes(lost).stream().anyMatch(RollbackException.class::isInstance),
                    () -> "the transaction manager's exception is the cause: " + causes(lost));
            assertTrue(lost.getMessage().contains(key), lost.getMessage());
        }
    }

    @Test
    void aHeldLockLetsTheTransactionCommit() throws Exception {
        try (DistlockWeld weld = start(true)) {
            assertEquals("done", weld.bean(Jobs.class).run("kept", () -> { }));
            assertEquals(Status.STATUS_COMMITTED, Jobs.last.getStatus());
            assertFalse(Probe.isLocked(lockKey(weld, "lock", "job:kept")));
        }
    }

    @Test
    void writeAndReadLocksGuardTheirTransactionsToo() throws Exception {
        try (DistlockWeld weld = start(true)) {
            String key = lockKey(weld, "rw", "catalog:lost");
            Jobs jobs = weld.bean(Jobs.class);
            assertTrue(assertThrows(LockLostException.class, () -> jobs.reprice("lost", () -> Probe.delete(key))).rolledBack());
            assertTrue(assertThrows(LockLostException.class, () -> jobs.read("lost", () -> Probe.delete(key))).rolledBack());
            jobs.read("kept", () -> { });
            assertEquals(Status.STATUS_COMMITTED, Jobs.last.getStatus());
        }
    }

    /**
     * The twin: with the check turned off, the same loss commits the transaction, and the caller
     * only learns at the release, after the commit, that the work did not run alone.
     */
    @Test
    void withoutTheCheckTheTransactionCommitsUnderALostLock() throws Exception {
        try (DistlockWeld weld = start(false)) {
            String key = lockKey(weld, "lock", "job:unchecked");
            LockLostException lost = assertThrows(LockLostException.class,
                    () -> weld.bean(Jobs.class).run("unchecked", () -> Probe.delete(key)));
            assertEquals(Status.STATUS_COMMITTED, Jobs.last.getStatus());
            assertFalse(lost.rolledBack());
        }
    }

    private static DistlockWeld start(boolean verify) {
        return Narayana.start(Map.of(
                        "distlock.key-prefix", TestRedis.uniquePrefix("guard"),
                        EngineSettings.VERIFY_BEFORE_COMMIT, Boolean.toString(verify)),
                Jobs.class);
    }

    private static List<Throwable> causes(Throwable failure) {
        List<Throwable> causes = new ArrayList<>();
        for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            causes.add(cause);
        }
        return causes;
    }

    private static String lockKey(DistlockWeld weld, String namespace, String key) {
        return weld.bean(DistlockSetup.class).settings().keyPrefix() + ":" + namespace + ":" + key;
    }
}
