package dev.distlock.jdbc;

import dev.distlock.testkit.backend.LockBackendContract;

import dev.distlock.spi.LockBackend;

import dev.distlock.jdbc.JdbcBackend;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.Nested;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The contract against the database: H2 always, PostgreSQL and MariaDB when their URLs are set
 * ({@value TestDatabases#POSTGRES_URL_VARIABLE}, {@value TestDatabases#MARIADB_URL_VARIABLE}); each
 * connection a {@link JdbcBackend} of its own over its own data source, as another JVM would have.
 */
class JdbcBackendContractTest {

    /** The contract on one database, in a table of its own. */
    abstract static class OnDatabase extends LockBackendContract {
        private final Database database;
        private final String table = TestDatabases.uniqueTable("distlock_lock");

        OnDatabase(Database database) {
            this.database = database;
        }

        Database database() {
            return database;
        }

        String table() {
            return table;
        }

        @Override
        protected LockBackend connect() {
            return new JdbcBackend(database.dataSource(), table, 3_000, 5_000);
        }

        @Override
        protected void lose(String name) throws SQLException {
            try (Connection connection = database.dataSource().getConnection();
                 PreparedStatement delete = connection.prepareStatement("DELETE FROM " + table + " WHERE name = ?")) {
                delete.setString(1, name);
                delete.executeUpdate();
                if (!connection.getAutoCommit()) {
                    connection.commit();
                }
            }
        }

        /** Skips the contract on a database the environment does not name (H2 always runs). */
        @org.junit.jupiter.api.BeforeEach
        void assumeConfigured() {
            database.assumeAvailable();
        }

        @org.junit.jupiter.api.AfterEach
        void dropTables() throws SQLException {
            if (database.available()) {
                DataSource dataSource = database.dataSource();
                TestDatabases.dropTable(dataSource, table);
                TestDatabases.dropTable(dataSource, table + "_name");
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
