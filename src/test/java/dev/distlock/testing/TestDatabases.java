package dev.distlock.testing;

import dev.distlock.testkit.DatabaseProcess;
import dev.distlock.testkit.EmbeddedMariaDb;
import dev.distlock.testkit.EmbeddedPostgres;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.ServerUnavailable;
import org.h2.jdbcx.JdbcConnectionPool;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.Assumptions;
import org.mariadb.jdbc.MariaDbDataSource;
import org.mariadb.jdbc.MariaDbPoolDataSource;
import org.postgresql.ds.PGConnectionPoolDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The databases the JDBC tests run against: H2 in memory in this JVM, and PostgreSQL and MariaDB:
 * the servers {@code DISTLOCK_TEST_POSTGRES_URL} and {@code DISTLOCK_TEST_MARIADB_URL} name, or else
 * servers of the test support's own ({@link EmbeddedPostgres}, {@link EmbeddedMariaDb}), started on first
 * use, one each per JVM. A test over a database that can run neither way here (another platform than
 * Linux x86-64) is skipped, not passed, with the reason.
 */
public final class TestDatabases {

    public static final String POSTGRES_URL_VARIABLE = "DISTLOCK_TEST_POSTGRES_URL";
    public static final String MARIADB_URL_VARIABLE = "DISTLOCK_TEST_MARIADB_URL";

    /** One in-memory database for the whole JVM; tests keep apart by table names. */
    /** Connections a {@link #pooled} source keeps at most: more than a storm's threads, watchdogs and sweeps take at once. */
    private static final int POOL_SIZE = 32;
    private static final String H2_URL = "jdbc:h2:mem:distlock-tests;DB_CLOSE_DELAY=-1";

    private TestDatabases() {
    }

    public enum Database {
        H2(null, null),
        POSTGRESQL(POSTGRES_URL_VARIABLE, EmbeddedPostgres::shared),
        MARIADB(MARIADB_URL_VARIABLE, EmbeddedMariaDb::shared);

        private final String urlVariable;
        private final Supplier<DatabaseProcess> embedded;

        Database(String urlVariable, Supplier<DatabaseProcess> embedded) {
            this.urlVariable = urlVariable;
            this.embedded = embedded;
        }

        /**
         * The JDBC URL: the environment's, else that of this JVM's own server (started now if it is
         * not yet); {@code null} when neither can be had here.
         */
        public String url() {
            if (urlVariable == null) {
                return H2_URL;
            }
            String url = System.getenv(urlVariable);
            if (url != null && !url.isBlank()) {
                return url.strip();
            }
            try {
                return embedded.get().jdbcUrl();
            } catch (ServerUnavailable cannotRunHere) {
                return null;
            }
        }

        public boolean available() {
            return url() != null;
        }

        /** Skips the calling test unless this database is available. */
        public void assumeAvailable() {
            Assumptions.assumeTrue(available(), () -> name() + " cannot run here (" + unavailableReason() + "): set "
                    + urlVariable + " to a server's JDBC URL to run this case");
        }

        /** Why this JVM cannot start its own server of this database; {@code null} if it can or has. */
        private String unavailableReason() {
            try {
                embedded.get();
                return null;
            } catch (ServerUnavailable e) {
                return e.getMessage();
            }
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

    /**
     * Connections of {@code url} kept and reused, as an application server's pool keeps them: a new
     * PostgreSQL connection (its process and password exchange) takes longer than many lock grants,
     * and with one per statement a storm measures connecting, not locking; so does an H2 server's.
     * H2 in this JVM connects at no cost and is not pooled. Close it when the test is over.
     */
    public static Pool pooled(String url) {
        if (url.startsWith("jdbc:postgresql:")) {
            PGConnectionPoolDataSource postgres = new PGConnectionPoolDataSource();
            postgres.setURL(url);
            JdbcConnectionPool pool = JdbcConnectionPool.create(postgres);
            pool.setMaxConnections(POOL_SIZE);
            return new Pool(pool, pool::dispose);
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            try {
                MariaDbPoolDataSource mariaDb = new MariaDbPoolDataSource(url + (url.contains("?") ? "&" : "?") + "maxPoolSize=" + POOL_SIZE);
                return new Pool(mariaDb, mariaDb::close);
            } catch (SQLException e) {
                throw new IllegalArgumentException("not a usable MariaDB URL: " + url, e);
            }
        }
        if (url.startsWith("jdbc:h2:tcp:")) {
            JdbcConnectionPool pool = JdbcConnectionPool.create((JdbcDataSource) dataSourceFor(url));
            pool.setMaxConnections(POOL_SIZE);
            return new Pool(pool, pool::dispose);
        }
        return new Pool(dataSourceFor(url), () -> { });
    }

    /** A data source that keeps its connections ({@link #pooled}), and gives them up on {@link #close}. */
    public record Pool(DataSource dataSource, Runnable closer) implements AutoCloseable {
        @Override
        public void close() {
            closer.run();
        }
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
