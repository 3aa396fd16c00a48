package dev.distlock.jdbc;

import dev.distlock.LockMode;
import dev.distlock.OnTimeout;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGConnectionPoolDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On PostgreSQL a release commits without waiting for the disk ({@code synchronous_commit} off for
 * its own statement only): the application's connection, given back to its pool, keeps the setting
 * it had, so the application's own commits still wait for the disk.
 */
class ReleaseLeavesTheSessionAsItWasTest {

    @Test
    void theApplicationsConnectionStillCommitsSynchronouslyAfterARelease() throws Exception {
        Database.POSTGRESQL.assumeAvailable();
        PGConnectionPoolDataSource postgres = new PGConnectionPoolDataSource();
        postgres.setURL(Database.POSTGRESQL.url());
        // Two connections: a grant's and, the first time, the one that opens the tables.
        JdbcConnectionPool pool = JdbcConnectionPool.create(postgres);
        pool.setMaxConnections(2);
        String table = TestDatabases.uniqueTable("release_lock");
        JdbcBackend backend = new JdbcBackend(pool, table, 5_000, 5_000);
        try {
            // The application's setting, on each of the pool's connections (the test support's server is set to off).
            try (Connection first = pool.getConnection(); Connection second = pool.getConnection()) {
                for (Connection connection : new Connection[] {first, second}) {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SET synchronous_commit = on");
                    }
                }
            }
            LockPolicy policy = new LockPolicy("ReleaseLeavesTheSessionAsItWasTest", LockMode.EXCLUSIVE, 0, 5_000, OnTimeout.FAIL);
            for (int i = 0; i < 3; i++) {
                BackendLease lease = backend.acquire("release", policy, System.nanoTime());
                assertNotNull(lease, "the free lock was not granted");
                assertTrue(lease.release().get(10, TimeUnit.SECONDS), "the lease ended while held");
            }
            // Both of the pool's connections at once: the one the releases ran on is one of them.
            try (Connection first = pool.getConnection(); Connection second = pool.getConnection()) {
                for (Connection connection : new Connection[] {first, second}) {
                    try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery("SHOW synchronous_commit")) {
                        row.next();
                        assertEquals("on", row.getString(1));
                    }
                }
            }
        } finally {
            backend.close();
            TestDatabases.dropTable(pool, table);
            TestDatabases.dropTable(pool, table + "_name");
            pool.dispose();
        }
    }
}
