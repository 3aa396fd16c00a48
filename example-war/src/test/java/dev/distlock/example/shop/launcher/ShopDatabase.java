package dev.distlock.example.shop.launcher;

import dev.distlock.example.shop.ShopApplication;
import dev.distlock.testkit.ParentWatch;
import dev.distlock.testkit.Processes;
import org.h2.tools.Server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The database every shop server shares: an H2 server of our own (in memory, loopback only), or a
 * database the environment names (PostgreSQL, MariaDB) as a JDBC URL with its credentials in it.
 */
public final class ShopDatabase implements AutoCloseable {

    private static final Duration H2_START_TIMEOUT = Duration.ofSeconds(30);

    private final String url;
    private final String dataSourceClass;
    /** The H2 server in this JVM, or {@code null}. */
    private final Server h2;
    /** The H2 server as a process of its own, or {@code null}. */
    private final Process h2Process;

    private ShopDatabase(String url, String dataSourceClass, Server h2, Process h2Process) {
        this.url = url;
        this.dataSourceClass = dataSourceClass;
        this.h2 = h2;
        this.h2Process = h2Process;
    }

    /**
     * Replaces {@link ShopApplication#H2_SETTINGS} in the H2 server's URL, only to show what they
     * prevent: {@code -Dshop.h2.settings=;DB_CLOSE_DELAY=-1} brings back H2's stale results.
     */
    public static final String H2_SETTINGS_PROPERTY = "shop.h2.settings";

    /** An H2 TCP server on {@code port}, holding one in-memory database. */
    public static ShopDatabase startH2(int port) {
        String settings = System.getProperty(H2_SETTINGS_PROPERTY, ShopApplication.H2_SETTINGS);
        try {
            // -ifNotExists lets the first client create the database; without -tcpAllowOthers only
            // this machine can connect.
            Server server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
            return new ShopDatabase(h2Url(port, settings), "org.h2.jdbcx.JdbcDataSource", server, null);
        } catch (SQLException e) {
            throw new IllegalStateException("could not start the H2 server on port " + port, e);
        }
    }

    /**
     * An H2 TCP server on {@code port}, as a JVM of its own (the H2 jar this one uses), so that its
     * CPU time can be told from the caller's; it ends when the caller does.
     *
     * @param workDir where it logs ({@code h2.log})
     */
    public static ShopDatabase startH2Process(int port, Path workDir) {
        String settings = System.getProperty(H2_SETTINGS_PROPERTY, ShopApplication.H2_SETTINGS);
        Process process = null;
        try {
            Path h2Jar = Path.of(Server.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                    "-javaagent:" + ParentWatch.writeAgentJar(workDir) + "=" + ProcessHandle.current().pid(),
                    "-cp", h2Jar.toString(), Server.class.getName(), "-tcp", "-tcpPort", Integer.toString(port), "-ifNotExists");
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(workDir.resolve("h2.log").toFile()).start();
            awaitListening(process, port);
            return new ShopDatabase(h2Url(port, settings), "org.h2.jdbcx.JdbcDataSource", null, process);
        } catch (IOException | URISyntaxException | RuntimeException e) {
            if (process != null) {
                Processes.kill(process);
            }
            throw new IllegalStateException("could not start an H2 server process on port " + port + ": " + e, e);
        }
    }

    private static void awaitListening(Process process, int port) {
        long deadline = System.nanoTime() + H2_START_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the H2 server exited with " + process.exitValue());
            }
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        throw new IllegalStateException("the H2 server did not listen on port " + port + " within " + H2_START_TIMEOUT);
    }

    private static String h2Url(int port, String settings) {
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:shop" + settings;
    }

    /** Whether this is an H2 server started here (in this JVM or as a process of its own). */
    public boolean isOwnH2() {
        return h2 != null || h2Process != null;
    }

    /** The process id of the H2 server process, when it runs as one. */
    public OptionalLong processId() {
        return h2Process == null ? OptionalLong.empty() : OptionalLong.of(h2Process.pid());
    }

    /** A database that runs elsewhere; {@code url} is a JDBC URL of PostgreSQL, MariaDB/MySQL or H2. */
    public static ShopDatabase external(String url) {
        return new ShopDatabase(url, dataSourceClassFor(url), null, null);
    }

    static String dataSourceClassFor(String url) {
        if (url.startsWith("jdbc:postgresql:")) {
            return "org.postgresql.ds.PGSimpleDataSource";
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            return "org.mariadb.jdbc.MariaDbDataSource";
        }
        if (url.startsWith("jdbc:h2:")) {
            return "org.h2.jdbcx.JdbcDataSource";
        }
        throw new IllegalArgumentException("not a JDBC URL of PostgreSQL, MariaDB/MySQL or H2: " + url);
    }

    /**
     * What a shop server needs to reach this database, as system properties. A {@code user} or
     * {@code password} parameter in the URL becomes {@code shop.datasource.user}/{@code .password}:
     * Payara passes those to the driver separately, and they would override the URL's.
     */
    public Map<String, String> shopProperties() {
        Map<String, String> properties = new HashMap<>();
        properties.put("shop.datasource.url", url);
        properties.put("shop.datasource.class-name", dataSourceClass);
        urlParameter("user").ifPresent(user -> properties.put("shop.datasource.user", user));
        urlParameter("password").ifPresent(password -> properties.put("shop.datasource.password", password));
        return properties;
    }

    private Optional<String> urlParameter(String name) {
        int query = url.indexOf('?');
        if (query < 0) {
            return Optional.empty();
        }
        for (String pair : url.substring(query + 1).split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0 && pair.substring(0, equals).equalsIgnoreCase(name)) {
                return Optional.of(URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            }
        }
        return Optional.empty();
    }

    public String url() {
        return url;
    }

    public String describe() {
        return h2 != null ? "H2 server " + url + " (in the launcher's JVM)"
                : h2Process != null ? "H2 server " + url + " (a JVM of its own, pid " + h2Process.pid() + ")"
                : "database " + url.replaceAll("password=[^&;]*", "password=***");
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, isOwnH2() ? "sa" : null, isOwnH2() ? "" : null);
    }

    @Override
    public void close() {
        if (h2 != null) {
            h2.stop();
        }
        if (h2Process != null) {
            Processes.stop(h2Process, Duration.ofSeconds(5));
        }
    }
}
