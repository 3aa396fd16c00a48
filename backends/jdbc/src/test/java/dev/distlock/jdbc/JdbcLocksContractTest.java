package dev.distlock.jdbc;

import dev.distlock.DistributedLocks;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.Nested;

import java.time.Duration;

/**
 * The contract through {@link JdbcLocks#builder(javax.sql.DataSource, String, Duration)}, as an
 * application without CDI uses it, on each database {@link JdbcBackendContractTest} runs.
 */
class JdbcLocksContractTest {

    /** The contract on one database, each engine made by the public entry point. */
    abstract static class ThroughBuilder extends JdbcBackendContractTest.OnDatabase {
        ThroughBuilder(Database database) {
            super(database);
        }

        @Override
        protected DistributedLocks.Builder builder() {
            return JdbcLocks.builder(database().dataSource(), table(), Duration.ofSeconds(3));
        }
    }

    @Nested
    class H2 extends ThroughBuilder {
        H2() {
            super(Database.H2);
        }
    }

    @Nested
    class PostgreSql extends ThroughBuilder {
        PostgreSql() {
            super(Database.POSTGRESQL);
        }
    }

    @Nested
    class MariaDb extends ThroughBuilder {
        MariaDb() {
            super(Database.MARIADB);
        }
    }
}
