package dev.distlock.testing;

import dev.distlock.testkit.Ports;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.Assumptions;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The databases the JDBC tests run against: H2 always (in memory, in this JVM), PostgreSQL and
 * MariaDB when the environment names them. A test over a database the environment does not name is
 * skipped, not passed.
 */
public final class TestDatabases {

    public static final String POSTGRES_URL_VARIABLE = "DISTLOCK_TEST_POSTGRES_URL";
    public static final String MARIADB_URL_VARIABLE = "DISTLOCK_TEST_MARIADB_URL";

    /** One in-memory database for the whole JVM; tests keep apart by table names. */
    private static final String H2_URL = "jdbc:h2:mem:distlock-tests;DB_CLOSE_DELAY=-1";

    private TestDatabases() {
    }

    public enum Database {
        H2(null),
        POSTGRESQL(POSTGRES_URL_VARIABLE),
        MARIADB(MARIADB_URL_VARIABLE);

        private final String urlVariable;

        Database(String urlVariable) {
            this.urlVariable = urlVariable;
        }

        /** The JDBC URL, or {@code null} when the environment does not name this database. */
        public String url() {
            if (urlVariable == null) {
                return H2_URL;
            }
            String url = System.getenv(urlVariable);
            return url == null || url.isBlank() ? null : url.strip();
        }

        public boolean available() {
            return url() != null;
        }

        /** Skips the calling test unless this database is available. */
        public void assumeAvailable() {
            Assumptions.assumeTrue(available(), () -> name() + " is not configured: set " + urlVariable + " to run this case");
        }

        /** A new data source; skips the calling test when this database is not available. */
        public DataSource dataSource() {
            assumeAvailable();
            return dataSourceFor(url());
        }
    }

    /** A data source for a JDBC URL of H2, PostgreSQL or MariaDB. */
    public static DataSource dataSourceFor(String url) {
        if (url.startsWith("jdbc:h2:")) {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL(url);
            return h2;
        }
        if (url.startsWith("jdbc:postgresql:")) {
            PGSimpleDataSource postgres = new PGSimpleDataSource();
            postgres.setURL(url);
            return postgres;
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            try {
                return new MariaDbDataSource(url);
            } catch (SQLException e) {
                throw new IllegalArgumentException("not a usable MariaDB URL: " + url, e);
            }
        }
        throw new IllegalArgumentException("no data source for " + url);
    }

    /** A table name no other test or run uses: {@code base} plus a random suffix. */
    public static String uniqueTable(String base) {
        return base + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    /** Drops a test's table; the persistent databases would otherwise collect them. */
    public static void dropTable(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + table);
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        }
    }

    /**
     * An H2 TCP server in this JVM on a free port, so that child JVMs share one database through
     * {@link H2Server#url(String)}. Stop it when done.
     */
    public static H2Server startH2TcpServer() throws SQLException {
        int port = Ports.free();
        Server server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
        return new H2Server(server, port);
    }

    public record H2Server(Server server, int port) implements AutoCloseable {

        /** The URL of an in-memory database {@code name} held by the server while it runs. */
        public String url(String name) {
            return "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:" + name + ";DB_CLOSE_DELAY=-1";
        }

        @Override
        public void close() {
            server.stop();
        }
    }
}
