package dev.distlock.jdbc;

import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.OnTimeout;
import dev.distlock.spi.LockPolicy;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A grant whose answer is lost: the database decided, and perhaps committed, but the connection broke
 * before the answer reached the backend (SQLState 08006), or the caller stopped waiting for it. The
 * caller is told the database failed, and the lock must not stay held by nobody until its lease ends:
 * another node gets it at once. Each way the answer can be lost (the commit went through, it did not,
 * the statement before it failed, the answer came after the caller gave up, the caller was
 * interrupted), on H2, PostgreSQL and MariaDB, through {@link LostGrantAnswers}, a wrapper that breaks
 * the connection at that moment; the database behind it is real.
 */
@Timeout(120)
class LostGrantAnswerTest {

    static final long LEASE_MILLIS = 6_000;
    static final long GRACE_MILLIS = 1_000;
    /** Well under the lease: how soon another node must have a lock whose grant was lost. */
    static final long PROMPTLY_MILLIS = 1_500;
    static final LockPolicy WATCHDOG = new LockPolicy("lost answer test", LockMode.EXCLUSIVE, 0, LockPolicy.WATCHDOG_LEASE,
            OnTimeout.FAIL);
    /** The same, waiting: for the other nodes. */
    static final LockPolicy WAITING = new LockPolicy("lost answer test", LockMode.EXCLUSIVE, 60_000, LockPolicy.WATCHDOG_LEASE,
            OnTimeout.FAIL);

    abstract static class OnDatabase {
        private final Database database;
        private final String table = TestDatabases.uniqueTable("distlock_lost");
        private final List<JdbcBackend> backends = new ArrayList<>();
        private DataSource direct;
        private LostGrantAnswers answers;

        OnDatabase(Database database) {
            this.database = database;
        }

        @BeforeEach
        void databases() {
            direct = database.dataSource();
            answers = new LostGrantAnswers(direct, table);
        }

        @AfterEach
        void cleanUp() throws Exception {
            backends.forEach(JdbcBackend::close);
            TestDatabases.dropTable(direct, table);
            TestDatabases.dropTable(direct, table + "_name");
        }

        /** The node whose grant breaks, over the wrapper; its tables opened first, so that the grant is the one statement armed. */
        JdbcBackend losingNode() throws Exception {
            return opened(backend(answers));
        }

        JdbcBackend backend(DataSource dataSource) {
            JdbcBackend backend = new JdbcBackend(dataSource, table, LEASE_MILLIS, GRACE_MILLIS);
            bound(backend);
            return backend;
        }

        JdbcBackend bound(JdbcBackend backend) {
            backend.bind((task, delayNanos) -> CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS).execute(task));
            backends.add(backend);
            return backend;
        }

        JdbcBackend opened(JdbcBackend backend) throws Exception {
            // Tried again while the database is slow to answer the first time (a loaded machine).
            assertTrue(LostGrants.millisUntilTaken(backend, "warm-up", 30_000) >= 0, "the tables open");
            return backend;
        }

        DataSource direct() {
            return direct;
        }

        String table() {
            return table;
        }

        LostGrantAnswers answers() {
            return answers;
        }

        /** The caller of {@code node} is told the database failed, in words that name the lock. */
        LockServiceUnavailableException failsNamingTheLock(JdbcBackend node, String name) {
            LockServiceUnavailableException failure = assertThrows(LockServiceUnavailableException.class,
                    () -> node.acquire(name, WATCHDOG, System.nanoTime()));
            assertTrue(failure.getMessage().contains("'" + name + "'"), failure.getMessage());
            return failure;
        }

        @Test
        void aGrantThatCommittedButFailedToAnswerIsGivenBackAtOnce() throws Exception {
            JdbcBackend node = losingNode();
            JdbcBackend other = backend(direct);
            answers.armAfterCommit();
            LockServiceUnavailableException failure = failsNamingTheLock(node, "stock:A");
            long waited = LostGrants.millisUntilTaken(other, "stock:A", 2 * LEASE_MILLIS);
            System.out.printf("[lost-answer] %s: another node got the lock %d ms after the caller was told (lease %d ms)%n",
                    database, waited, LEASE_MILLIS);
            assertEquals(1, answers.committedThenLost(), "the database committed the grant and its answer was lost");
            assertTrue(waited >= 0 && waited < PROMPTLY_MILLIS, "another node got the lock " + waited + " ms after the caller "
                    + "was told (lease " + LEASE_MILLIS + " ms): the lost grant kept it, held by nobody");
            assertTrue(failure.getMessage().contains("given back"), failure.getMessage());
        }

        /**
         * The commit never reached the database: nothing is held. The give-back goes on looking for a
         * late commit until the lease would have ended, and removes nobody else's holder meanwhile.
         */
        @Test
        void aCommitThatNeverReachedTheDatabaseLeavesNothingHeldAndRemovesNobodyElsesHolder() throws Exception {
            JdbcBackend node = losingNode();
            JdbcBackend other = backend(direct);
            answers.arm(LostGrantAnswers.Break.BEFORE_COMMIT, 0);
            failsNamingTheLock(node, "stock:B");
            assertEquals(0, answers.committedThenLost());
            assertEquals(1, answers.broken());
            LostGrants.Taken taken = LostGrants.take(other, "stock:B", 2 * LEASE_MILLIS);
            assertNotNull(taken, "another node never got the lock");
            assertTrue(taken.afterMillis() < PROMPTLY_MILLIS, "another node got the lock after " + taken.afterMillis() + " ms");
            LostGrants.heldThroughout(taken.lease(), backend(direct), "stock:B", LEASE_MILLIS + 2_000);
        }

        @Test
        void aGrantWhoseInsertFailedLeavesNothingHeld() throws Exception {
            JdbcBackend node = losingNode();
            JdbcBackend other = backend(direct);
            answers.arm(LostGrantAnswers.Break.AT_THE_INSERT, 0);
            failsNamingTheLock(node, "stock:C");
            assertEquals(1, answers.broken());
            long waited = LostGrants.millisUntilTaken(other, "stock:C", 2 * LEASE_MILLIS);
            assertTrue(waited >= 0 && waited < PROMPTLY_MILLIS, "another node got the lock after " + waited + " ms");
        }

        /** The caller stopped waiting at the answer grace; the grant committed after, and its answer was lost then. */
        @Test
        void aGrantThatCommittedAfterTheCallerGaveUpAndFailedToAnswerIsGivenBack() throws Exception {
            givenBackAfterTheCallerGaveUp(LostGrantAnswers.Break.AFTER_COMMIT, "stock:D");
            assertEquals(1, answers.committedThenLost());
        }

        /** The caller stopped waiting at the answer grace; the grant committed after, and answered. */
        @Test
        void aGrantThatAnsweredAfterTheCallerGaveUpIsGivenBack() throws Exception {
            givenBackAfterTheCallerGaveUp(LostGrantAnswers.Break.NONE, "stock:E");
            assertEquals(0, answers.broken());
        }

        private void givenBackAfterTheCallerGaveUp(LostGrantAnswers.Break at, String name) throws Exception {
            JdbcBackend node = losingNode();
            JdbcBackend other = backend(direct);
            long late = GRACE_MILLIS + 1_000;
            answers.arm(at, late);
            long started = System.nanoTime();
            LockServiceUnavailableException failure = failsNamingTheLock(node, name);
            long toldAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(toldAfter < late, "the caller was told after " + toldAfter + " ms, not at the answer grace: " + failure);
            long waited = LostGrants.millisUntilTaken(other, name, 2 * LEASE_MILLIS);
            assertTrue(waited >= 0 && waited < late + PROMPTLY_MILLIS, "another node got the lock " + waited
                    + " ms after the caller was told; the grant answered " + (late - toldAfter) + " ms after that");
        }

        @Test
        void anInterruptedCallersGrantIsGivenBack() throws Exception {
            JdbcBackend node = losingNode();
            JdbcBackend other = backend(direct);
            answers.arm(LostGrantAnswers.Break.AFTER_COMMIT, 600);
            CompletableFuture<Throwable> caller = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    node.acquire("stock:F", WATCHDOG, System.nanoTime());
                    caller.complete(null);
                } catch (Throwable e) {
                    caller.complete(e);
                }
            });
            thread.start();
            Thread.sleep(200);
            thread.interrupt();
            assertTrue(caller.get(10, TimeUnit.SECONDS) instanceof InterruptedException, "the caller was told: " + caller.get());
            long waited = LostGrants.millisUntilTaken(other, "stock:F", 2 * LEASE_MILLIS);
            assertTrue(waited >= 0 && waited < PROMPTLY_MILLIS, "another node got the lock after " + waited + " ms");
            assertEquals(1, answers.committedThenLost());
        }

        /**
         * Twin of the first test: with the give-back switched off, the same lost answer keeps the lock,
         * held by nobody, until its lease ends.
         */
        @Test
        void withoutTheGiveBackALostGrantKeepsTheLockForItsLease() throws Exception {
            JdbcBackend node = opened(bound(JdbcBackend.keepingLostGrants(answers, table, LEASE_MILLIS, GRACE_MILLIS)));
            JdbcBackend other = backend(direct);
            answers.armAfterCommit();
            failsNamingTheLock(node, "stock:G");
            assertEquals(1, answers.committedThenLost());
            long waited = LostGrants.millisUntilTaken(other, "stock:G", 2 * LEASE_MILLIS);
            System.out.printf("[lost-answer] %s, without the give-back (twin): another node got the lock %d ms after the caller "
                    + "was told (lease %d ms)%n", database, waited, LEASE_MILLIS);
            assertTrue(waited > LEASE_MILLIS - 1_500, "without the give-back another node got the lock after " + waited
                    + " ms, before the lease of " + LEASE_MILLIS + " ms could have ended");
        }
    }

    @Nested
    class H2 extends OnDatabase {
        H2() {
            super(Database.H2);
        }
    }

    @Nested
    class PostgreSql extends OnDatabase {
        PostgreSql() {
            super(Database.POSTGRESQL);
        }
    }

    @Nested
    class MariaDb extends OnDatabase {
        MariaDb() {
            super(Database.MARIADB);
        }
    }
}
