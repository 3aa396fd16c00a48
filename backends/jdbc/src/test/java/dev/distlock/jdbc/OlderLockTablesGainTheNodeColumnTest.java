package dev.distlock.jdbc;

import dev.distlock.LockMode;
import dev.distlock.OnTimeout;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.spi.StoredLock;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lock tables made by a distlock whose holders did not name their server: the first backend that
 * opens them adds the {@code node} column, the rows already there stay (listed without a server,
 * still holding, still excluding), and new holders name theirs. Two backends open the old tables
 * at once, as two servers of a rolling upgrade would: both succeed.
 */
class OlderLockTablesGainTheNodeColumnTest {

    private static final LockPolicy EXCLUSIVE = new LockPolicy("OlderLockTablesGainTheNodeColumnTest", LockMode.EXCLUSIVE, 0, 10_000,
            OnTimeout.FAIL);

    @ParameterizedTest
    @EnumSource(Database.class)
    void anOldHoldersTableGainsTheColumnAndKeepsItsHolders(Database database) throws Exception {
        DataSource dataSource = database.dataSource();
        String table = TestDatabases.uniqueTable("older_lock");
        JdbcBackend first = null;
        JdbcBackend second = null;
        try {
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
                // The tables as the versions before node names made them, with a holder that is still in force.
                statement.execute("CREATE TABLE " + table + "_name (name VARCHAR(" + LockTables.MAX_NAME_LENGTH
                        + ") NOT NULL PRIMARY KEY, token BIGINT NOT NULL)");
                statement.execute("CREATE TABLE " + table + " (name VARCHAR(" + LockTables.MAX_NAME_LENGTH
                        + ") NOT NULL, holder VARCHAR(40) NOT NULL, mode CHAR(1) NOT NULL, expires_at BIGINT NOT NULL, "
                        + "token BIGINT NOT NULL, PRIMARY KEY (name, holder))");
                statement.execute("INSERT INTO " + table + "_name (name, token) VALUES ('distlock:lock:old', 1)");
                statement.execute("INSERT INTO " + table + " (name, holder, mode, expires_at, token) VALUES "
                        + "('distlock:lock:old', 'older-node:1', 'X', 9000000000000000000, 0)");
            }
            first = new JdbcBackend(dataSource, table, 10_000, 10_000);
            second = new JdbcBackend(dataSource, table, 10_000, 10_000);
            first.identify("shop-1", "distlock");
            second.identify("shop-2", "distlock");
            // Both open the old tables at once (each adds the column, or finds it added), with two more
            // servers of the rolling upgrade: H2 refuses a concurrent ALTER with a lock timeout.
            List<JdbcBackend> opening = List.of(first, second, new JdbcBackend(dataSource, table, 10_000, 10_000),
                    new JdbcBackend(dataSource, table, 10_000, 10_000));
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.CompletableFuture<List<StoredLock>>> listings = opening.stream()
                    .map(backend -> java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                        return backend.inspect("distlock:lock:", 10);
                    }, java.util.concurrent.Executors.newSingleThreadExecutor())).toList();
            go.countDown();
            List<List<StoredLock.Holder>> seen = new java.util.ArrayList<>();
            for (var listing : listings) {
                seen.add(listing.get(30, TimeUnit.SECONDS).stream().flatMap(lock -> lock.holders().stream()).toList());
            }
            opening.subList(2, 4).forEach(JdbcBackend::close);
            assertEquals(java.util.Collections.nCopies(4, seen.get(0)), seen, "every server read the same holders");
            List<StoredLock> fromFirst = first.inspect("distlock:lock:", 10);

            StoredLock old = fromFirst.stream().filter(lock -> lock.name().equals("distlock:lock:old")).findFirst().orElseThrow();
            assertEquals(List.of(StoredLock.Holder.of("older-node:1", null)), old.holders(), "the old holder, of no known server");
            assertNull(first.acquire("distlock:lock:old", EXCLUSIVE, System.nanoTime()), "the old holder still excludes");

            BackendLease one = first.acquire("distlock:lock:new-1", EXCLUSIVE, System.nanoTime());
            BackendLease two = second.acquire("distlock:lock:new-2", EXCLUSIVE, System.nanoTime());
            assertNotNull(one);
            assertNotNull(two);
            Map<String, Optional<String>> servers = first.inspect("distlock:lock:new-", 10).stream()
                    .collect(Collectors.toMap(StoredLock::name, lock -> lock.holders().get(0).node()));
            assertEquals(Map.of("distlock:lock:new-1", Optional.of("shop-1"), "distlock:lock:new-2", Optional.of("shop-2")), servers);
            assertTrue(one.release().get(10, TimeUnit.SECONDS));
            assertTrue(two.release().get(10, TimeUnit.SECONDS));
        } finally {
            if (first != null) {
                first.close();
            }
            if (second != null) {
                second.close();
            }
            TestDatabases.dropTable(dataSource, table);
            TestDatabases.dropTable(dataSource, table + "_name");
        }
    }
}
