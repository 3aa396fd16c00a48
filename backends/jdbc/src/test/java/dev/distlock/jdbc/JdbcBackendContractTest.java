package dev.distlock.jdbc;

import dev.distlock.testkit.backend.LockBackendContract;
import dev.distlock.testkit.backend.LostGrantAnswer;

import dev.distlock.spi.LockBackend;

import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract against the database: H2 always, PostgreSQL and MariaDB when their URLs are set
 * ({@value TestDatabases#POSTGRES_URL_VARIABLE}, {@value TestDatabases#MARIADB_URL_VARIABLE}); each
 * connection a {@link JdbcBackend} of its own over its own data source, as another JVM would have.
 */
class JdbcBackendContractTest {

    static final long LEASE_MILLIS = 3_000;
    static final long GRACE_MILLIS = 5_000;

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
            return new JdbcBackend(database.dataSource(), table, LEASE_MILLIS, GRACE_MILLIS);
        }

        /**
         * Through {@link LostGrantAnswers}: the database commits the grant, then the connection breaks
         * (SQLState 08006), as a link that drops at that moment leaves it.
         */
        @Override
        protected LostGrantAnswer connectLosingTheAnswerToTheNextGrantOf(String name) {
            LostGrantAnswers answers = new LostGrantAnswers(database.dataSource(), table).armAfterCommit();
            return new LostGrantAnswer(new JdbcBackend(answers, table, LEASE_MILLIS, GRACE_MILLIS), () -> answers.committedThenLost() == 1);
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

    /** The contract, and the twin of its lost-answer case. */
    abstract static class WithTwin extends OnDatabase {
        WithTwin(Database database) {
            super(database);
        }

        /**
         * Twin of {@code aGrantThatCommittedButFailedToAnswerIsGivenBackAtOnce}: the same lost answer
         * with the backend's give-back switched off keeps the lock, held by nobody, for its lease.
         */
        @Test
        void withoutTheGiveBackALostGrantKeepsTheLockForItsLease() throws Exception {
            LostGrantAnswers answers = new LostGrantAnswers(database().dataSource(), table()).armAfterCommit();
            long waited = millisUntilTakenAfterALostGrantAnswer(new LostGrantAnswer(
                    JdbcBackend.keepingLostGrants(answers, table(), LEASE_MILLIS, GRACE_MILLIS), () -> answers.committedThenLost() == 1),
                    "lost-answer");
            System.out.printf("[contract] %s, without the give-back (twin): another connection got the lock %d ms after the "
                    + "caller was told (lease %d ms)%n", getClass().getName(), waited, LEASE_MILLIS);
            assertTrue(waited < 0 || waited > LEASE_MILLIS - 1_000, "without the give-back another connection got the lock "
                    + waited + " ms after the caller was told, before the lease of " + LEASE_MILLIS + " ms could have ended");
        }
    }

    @Nested
    class H2 extends WithTwin {
        H2() {
            super(Database.H2);
        }
    }

    @Nested
    class PostgreSql extends WithTwin {
        PostgreSql() {
            super(Database.POSTGRESQL);
        }
    }

    @Nested
    class MariaDb extends WithTwin {
        MariaDb() {
            super(Database.MARIADB);
        }
    }
}
