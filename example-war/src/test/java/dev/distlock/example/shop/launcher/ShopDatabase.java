package dev.distlock.example.shop.launcher;

import dev.distlock.example.shop.ShopApplication;
import org.h2.tools.Server;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The database every shop server shares: an H2 server of our own (in memory, loopback only), or a
 * database the environment names (PostgreSQL, MariaDB) as a JDBC URL with its credentials in it.
 */
public final class ShopDatabase implements AutoCloseable {

    private final String url;
    private final String dataSourceClass;
    private final Server h2;

    private ShopDatabase(String url, String dataSourceClass, Server h2) {
        this.url = url;
        this.dataSourceClass = dataSourceClass;
        this.h2 = h2;
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
            String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:shop" + settings;
            return new ShopDatabase(url, "org.h2.jdbcx.JdbcDataSource", server);
        } catch (SQLException e) {
            throw new IllegalStateException("could not start the H2 server on port " + port, e);
        }
    }

    /** A database that runs elsewhere; {@code url} is a JDBC URL of PostgreSQL, MariaDB/MySQL or H2. */
    public static ShopDatabase external(String url) {
        return new ShopDatabase(url, dataSourceClassFor(url), null);
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
        return h2 != null ? "H2 server " + url : "database " + url.replaceAll("password=[^&;]*", "password=***");
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, h2 != null ? "sa" : null, h2 != null ? "" : null);
    }

    @Override
    public void close() {
        if (h2 != null) {
            h2.stop();
        }
    }
}
