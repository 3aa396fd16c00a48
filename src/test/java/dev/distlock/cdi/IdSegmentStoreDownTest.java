package dev.distlock.cdi;

import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerationException;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.testing.DistlockWeld;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Map;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A segment generator whose database is down deploys and can be injected; {@code nextId()} says
 * what is wrong at once instead of hanging, and works again once the database is back.
 */
class IdSegmentStoreDownTest {

    @Dependent
    public static class Invoices {
        @Inject @GeneratedId(value = "invoice", strategy = IdStrategy.SEGMENT) IdGenerator ids;
    }

    /** The application's DataSource: an H2 database that refuses connections while {@link #down}. */
    public static class Database {
        static volatile boolean down;
        static final String URL = IdTestDatabase.uniqueUrl("id-store-down");

        @Produces
        @ApplicationScoped
        DataSource dataSource() {
            return new Switchable(IdTestDatabase.dataSource(URL));
        }
    }

    static final class Switchable implements DataSource {
        private final DataSource database;

        Switchable(DataSource database) {
            this.database = database;
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (Database.down) {
                throw new SQLTransientConnectionException("connection refused (test)");
            }
            return database.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return getConnection();
        }

        @Override public PrintWriter getLogWriter() { return null; }
        @Override public void setLogWriter(PrintWriter out) { }
        @Override public void setLoginTimeout(int seconds) { }
        @Override public int getLoginTimeout() { return 0; }
        @Override public Logger getParentLogger() { return Logger.getGlobal(); }
        @Override public <T> T unwrap(Class<T> type) throws SQLException { throw new SQLException("not a wrapper"); }
        @Override public boolean isWrapperFor(Class<?> type) { return false; }
    }

    @AfterEach
    void databaseUp() {
        Database.down = false;
    }

    @Test
    void nextIdFailsWithTheStoresErrorAsCause() {
        Database.down = true;
        // The store timeout is long: the failure must come from the error, not from waiting it out.
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.id.invoice.store-timeout", "PT60S"),
                Database.class, Invoices.class)) {
            IdGenerator ids = weld.bean(Invoices.class).ids;

            IdGenerationException failure = assertTimeoutPreemptively(Duration.ofSeconds(30),
                    () -> assertThrows(IdGenerationException.class, ids::nextId));
            assertTrue(failure.getMessage().contains("'invoice'"), failure.getMessage());
            assertInstanceOf(SQLTransientConnectionException.class, rootCause(failure), "the cause says what the database said");
        }
    }

    @Test
    void theFirstCallAfterTheDatabaseIsBackGetsAnId() {
        Database.down = true;
        try (DistlockWeld weld = DistlockWeld.start(Map.of(), Database.class, Invoices.class)) {
            IdGenerator ids = weld.bean(Invoices.class).ids;
            assertThrows(IdGenerationException.class, ids::nextId);

            Database.down = false;
            assertTrue(assertTimeoutPreemptively(Duration.ofSeconds(30), ids::nextId) > 0);
        }
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
