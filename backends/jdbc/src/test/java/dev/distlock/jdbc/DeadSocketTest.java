package dev.distlock.jdbc;

import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.OnTimeout;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.testing.OpenedConnections;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import dev.distlock.testkit.PartitionProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Waits that would never end: a connection whose link was cut and never heals (a half-open socket:
 * the driver waits for an answer TCP will not deliver for many minutes), and a row another
 * transaction keeps locked (its client gone, the database keeping its transaction open). Each must
 * cost distlock's threads no more than a bound, so that one dead socket or one stuck row does not
 * take every lock of the JVM with it. On PostgreSQL (its embedded binaries, or the server the
 * environment names), through a pool of connections opened ahead as a server's pool holds them.
 */
@Timeout(120)
class DeadSocketTest {

    private static final long LEASE_MILLIS = 4_000;
    private static final long GRACE_MILLIS = 1_000;
    private static final Pattern HOST_AND_PORT = Pattern.compile("//([^:/]+):(\\d+)/");

    private final String table = TestDatabases.uniqueTable("distlock_dead");
    private final List<AutoCloseable> cleanups = new ArrayList<>();
    private DataSource direct;

    @BeforeEach
    void database() {
        direct = Database.POSTGRESQL.dataSource();
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).close();
        }
        TestDatabases.dropTable(direct, table);
        TestDatabases.dropTable(direct, table + "_name");
    }

    @Test
    void aRenewalOnADeadSocketDoesNotLetTheJvmsOtherLocksLapse() throws Exception {
        PartitionProxy dying = proxy();
        OpenedConnections pool = pool(dataSourceThrough(proxy()), dataSourceThrough(dying));
        JdbcBackend node = backend(pool);
        JdbcBackend other = backend(direct);
        LockPolicy watchdog = new LockPolicy("dead socket test", LockMode.EXCLUSIVE, 0, LockPolicy.WATCHDOG_LEASE, OnTimeout.FAIL);
        assertNotNull(node.acquire("a", watchdog, deadline(5_000)));
        assertNotNull(node.acquire("b", watchdog, deadline(5_000)));

        dying.cut();
        pool.nextOut(pool.opened().get(1)); // the renewal thread, the only one at work now, gets the dead link

        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * LEASE_MILLIS);
        while (System.nanoTime() < until) {
            assertNull(other.acquire("a", watchdog, System.nanoTime()), "another node took lock 'a': its holder's renewals stopped");
            assertNull(other.acquire("b", watchdog, System.nanoTime()), "another node took lock 'b': its holder's renewals stopped");
            Thread.sleep(250);
        }
    }

    @Test
    void aRowKeptLockedDelaysTheRenewalOfNoOtherLock() throws Exception {
        JdbcBackend node = backend(direct);
        JdbcBackend other = backend(direct);
        LockPolicy watchdog = new LockPolicy("dead socket test", LockMode.EXCLUSIVE, 0, LockPolicy.WATCHDOG_LEASE, OnTimeout.FAIL);
        assertNotNull(node.acquire("stuck", watchdog, deadline(5_000)));
        assertNotNull(node.acquire("fine", watchdog, deadline(5_000)));
        keepLocked("UPDATE " + table + " SET mode = mode WHERE name = 'stuck'");

        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * LEASE_MILLIS);
        while (System.nanoTime() < until) {
            assertNull(other.acquire("fine", watchdog, System.nanoTime()),
                    "another node took lock 'fine': the renewal of 'stuck', waiting for its row, kept it from being renewed");
            Thread.sleep(250);
        }
    }

    @Test
    void statementsWaitingForARowDoNotTakeTheThreadsOfEveryOtherLock() throws Exception {
        JdbcBackend node = backend(direct);
        LockPolicy once = new LockPolicy("dead socket test", LockMode.EXCLUSIVE, 0, 10_000, OnTimeout.FAIL);
        node.acquire("hot", once, deadline(5_000)).release().get(5, TimeUnit.SECONDS);
        keepLocked("SELECT token FROM " + table + "_name WHERE name = 'hot' FOR UPDATE");

        List<CompletableFuture<BackendLease>> stuck = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            stuck.add(CompletableFuture.supplyAsync(() -> acquire(node, "hot", once)));
        }
        for (CompletableFuture<BackendLease> caller : stuck) {
            Throwable failure = assertThrows(Exception.class, () -> caller.get(10, TimeUnit.SECONDS)).getCause();
            assertTrue(failure instanceof LockServiceUnavailableException, "the caller of 'hot' was told: " + failure);
        }
        Thread.sleep(GRACE_MILLIS);
        BackendLease free = acquire(node, "free", once);
        assertNotNull(free, "a free lock was granted");
    }

    /** A transaction of another client's that ran {@code sql} and stays open, its client gone quiet. */
    private void keepLocked(String sql) throws SQLException {
        Connection connection = direct.getConnection();
        connection.setAutoCommit(false);
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.execute();
        }
        cleanups.add(() -> {
            connection.rollback();
            connection.close();
        });
    }

    private static BackendLease acquire(JdbcBackend node, String name, LockPolicy policy) {
        try {
            return node.acquire(name, policy, System.nanoTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private JdbcBackend backend(DataSource dataSource) {
        JdbcBackend backend = new JdbcBackend(dataSource, table, LEASE_MILLIS, GRACE_MILLIS);
        backend.bind((task, delayNanos) -> CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS).execute(task));
        cleanups.add(backend::close);
        return backend;
    }

    private OpenedConnections pool(DataSource... sources) throws SQLException {
        OpenedConnections pool = new OpenedConnections(1, sources);
        cleanups.add(pool);
        return pool;
    }

    private PartitionProxy proxy() throws Exception {
        Matcher url = HOST_AND_PORT.matcher(Database.POSTGRESQL.url());
        assertTrue(url.find(), "a PostgreSQL URL with host and port: " + Database.POSTGRESQL.url());
        PartitionProxy proxy = new PartitionProxy(url.group(1), Integer.parseInt(url.group(2)));
        cleanups.add(proxy);
        return proxy;
    }

    private static DataSource dataSourceThrough(PartitionProxy proxy) {
        String url = HOST_AND_PORT.matcher(Database.POSTGRESQL.url()).replaceFirst("//127.0.0.1:" + proxy.port() + "/");
        return TestDatabases.dataSourceFor(url);
    }

    private static long deadline(long millis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }
}
