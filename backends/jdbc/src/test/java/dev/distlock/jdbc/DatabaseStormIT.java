package dev.distlock.jdbc;

import dev.distlock.spi.LockBackend;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import dev.distlock.testkit.backend.BackendStorm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutual exclusion across JVMs on the database backend: two JVMs x 4 threads x 1,000 sections of
 * one counter, every increment kept, on H2 and, where the environment names them, PostgreSQL and
 * MariaDB. The twin runs the same JVMs with no lock and must lose updates.
 */
@Timeout(300)
class DatabaseStormIT {

    private static final int ITERATIONS = 1_000;

    @Test
    void databaseLocksLoseNoUpdateAcrossJvms() throws Exception {
        try (TestDatabases.H2Server h2 = TestDatabases.startH2TcpServer()) {
            BackendStorm.runExact(Connector.class, h2.url("storm"), "storm_lock", ITERATIONS);
        }
    }

    @Test
    void databaseLocksOnPostgreSqlLoseNoUpdateAcrossJvms() throws Exception {
        stormOn(Database.POSTGRESQL);
    }

    @Test
    void databaseLocksOnMariaDbLoseNoUpdateAcrossJvms() throws Exception {
        stormOn(Database.MARIADB);
    }

    @Test
    void withoutALockTheSameJvmsLoseUpdates() throws Exception {
        BackendStorm.Storm storm = BackendStorm.runUnlocked(200);
        assertTrue(storm.counter() < storm.planned(), "no update was lost without a lock: " + storm);
    }

    private static void stormOn(Database database) throws Exception {
        database.assumeAvailable();
        String table = TestDatabases.uniqueTable("storm_lock");
        try {
            BackendStorm.runExact(Connector.class, database.url(), table, ITERATIONS);
        } finally {
            TestDatabases.dropTable(database.dataSource(), table);
            TestDatabases.dropTable(database.dataSource(), table + "_name");
        }
    }

    /**
     * Connects the child JVM to the database at the JDBC URL {@code connection}, lock table
     * {@code where}, through a pool as a server would (the pool ends with the child JVM).
     */
    public static final class Connector implements BackendStorm.Connector {
        @Override
        public LockBackend connect(String connection, String where) {
            return new JdbcBackend(TestDatabases.pooled(connection).dataSource(), where, 5_000, 5_000);
        }
    }
}
