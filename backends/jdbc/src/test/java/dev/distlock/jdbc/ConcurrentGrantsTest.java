package dev.distlock.jdbc;

import dev.distlock.LockMode;
import dev.distlock.OnTimeout;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Grant decisions of one name racing each other, below the engine (which lets one waiter per key and
 * JVM reach the store): 8 threads over 4 backends, each its own data source as another JVM would
 * have, try the name at once again and again, writers (half of them fenced) and readers mixed. No
 * writer may be granted while another writer or a reader holds the name, and each fenced writer's
 * token must be above every earlier one. On PostgreSQL this is what keeps the one-statement grant
 * honest: without its check that the name's row is as its snapshot saw it, two writers whose
 * statements started before either committed are both granted, and this test fails.
 */
class ConcurrentGrantsTest {

    private static final int BACKENDS = 4;
    private static final int THREADS_PER_BACKEND = 2;
    private static final long RUN_MILLIS = 4_000;
    private static final long HOLD_MICROS = 300;
    private static final long READER_PAUSE_MILLIS = 20;
    /**
     * Long: a grant given up on after the grace leaves its statement running in the server with the
     * locks it has (InnoDB ends it after its lock wait timeout, 50 s), which on a loaded machine held
     * up every other grant on MariaDB until then; what is tested here is exclusion, not timeouts.
     */
    private static final long ANSWER_GRACE_MILLIS = 30_000;

    abstract static class OnDatabase {
        private final Database database;
        private final String table = TestDatabases.uniqueTable("grants_lock");
        private final List<JdbcBackend> backends = new ArrayList<>();
        private final List<TestDatabases.Pool> pools = new ArrayList<>();
        private final AtomicInteger writers = new AtomicInteger();
        private final AtomicInteger readers = new AtomicInteger();
        private final AtomicInteger overlaps = new AtomicInteger();
        private final AtomicLong lastToken = new AtomicLong();
        private final AtomicInteger tokensOutOfOrder = new AtomicInteger();
        private final AtomicInteger writesGranted = new AtomicInteger();
        private final AtomicInteger readsGranted = new AtomicInteger();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();

        OnDatabase(Database database) {
            this.database = database;
        }

        @BeforeEach
        void connect() {
            database.assumeAvailable();
            for (int i = 0; i < BACKENDS; i++) {
                // Pooled: with a connection per statement, too few grants would race.
                TestDatabases.Pool pool = TestDatabases.pooled(database.url());
                pools.add(pool);
                backends.add(new JdbcBackend(pool.dataSource(), table, 5_000, ANSWER_GRACE_MILLIS));
            }
        }

        @AfterEach
        void close() throws SQLException {
            backends.forEach(JdbcBackend::close);
            pools.forEach(TestDatabases.Pool::close);
            if (database.available()) {
                DataSource dataSource = database.dataSource();
                TestDatabases.dropTable(dataSource, table);
                TestDatabases.dropTable(dataSource, table + "_name");
            }
        }

        @Test
        @Timeout(60)
        void aWriterIsNeverGrantedBesideAnotherHolder() throws Exception {
            long stopAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);
            List<Thread> threads = new ArrayList<>();
            int index = 0;
            for (JdbcBackend backend : backends) {
                for (int t = 0; t < THREADS_PER_BACKEND; t++, index++) {
                    LockMode mode = index % 4 == 3 ? LockMode.READ : LockMode.WRITE;
                    boolean fenced = index % 4 == 1;
                    LockPolicy policy = new LockPolicy("ConcurrentGrantsTest", fenced ? LockMode.EXCLUSIVE : mode, 0, 5_000,
                            OnTimeout.FAIL, fenced);
                    threads.add(new Thread(() -> contend(backend, policy, stopAt), "grants-" + policy.mode() + "-" + index));
                }
            }
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }
            assertTrue(failures.isEmpty(), () -> "a grant or release failed: " + failures);
            assertEquals(0, overlaps.get(), "grants beside a writer (" + writesGranted + " writes, " + readsGranted
                    + " reads granted)");
            assertEquals(0, tokensOutOfOrder.get(), "fenced tokens not above the one before");
            assertTrue(writesGranted.get() > 50, "too few writes granted to tell anything: " + writesGranted + " (and "
                    + readsGranted + " reads)");
        }

        private void contend(JdbcBackend backend, LockPolicy policy, long stopAt) {
            boolean writer = policy.mode() != LockMode.READ;
            try {
                while (System.nanoTime() < stopAt) {
                    BackendLease lease = backend.acquire("contended", policy, System.nanoTime());
                    if (lease == null) {
                        continue;
                    }
                    AtomicInteger mine = writer ? writers : readers;
                    int inside = mine.incrementAndGet();
                    if (writer ? inside != 1 || readers.get() != 0 : writers.get() != 0) {
                        overlaps.incrementAndGet();
                    }
                    if (policy.fenced() && lastToken.getAndAccumulate(lease.fencingToken(), Math::max) >= lease.fencingToken()) {
                        tokensOutOfOrder.incrementAndGet();
                    }
                    (writer ? writesGranted : readsGranted).incrementAndGet();
                    long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(HOLD_MICROS);
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    mine.decrementAndGet();
                    assertTrue(lease.release().get(10, TimeUnit.SECONDS), "the lease ended while held");
                    if (!writer) {
                        Thread.sleep(READER_PAUSE_MILLIS); // readers sharing the name without a pause would starve the writers
                    }
                }
            } catch (Throwable e) {
                failures.add(e);
            }
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
