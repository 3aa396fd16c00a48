package dev.distlock.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.core.Durations;
import org.eclipse.microprofile.config.Config;

import java.util.Locale;
import java.util.Optional;

/**
 * Where the locks live: {@code distlock.backend} ({@code redis}, the default, {@code zookeeper} or
 * {@code jdbc}) and its settings, {@code distlock.zookeeper.*} or {@code distlock.jdbc.*}. Every value
 * is checked at deployment, and so is the presence of Apache Curator when ZooKeeper is chosen.
 *
 * @param kind              the backend
 * @param zooKeeperConnect  the ensemble, {@code host:port[,host:port…]}; ZooKeeper only
 * @param zooKeeperRoot     the path locks live under, default {@value #DEFAULT_ROOT}
 * @param sessionTimeoutMillis how long ZooKeeper keeps a silent session, and with it its locks
 * @param connectionTimeoutMillis how long a connection attempt may take
 * @param jdbc              the database's settings; JDBC only
 */
record BackendSettings(Kind kind, String zooKeeperConnect, String zooKeeperRoot, long sessionTimeoutMillis,
                       long connectionTimeoutMillis, Jdbc jdbc) {

    /**
     * @param dataSource  the JNDI name of the DataSource; empty: the application's DataSource bean, or
     *                    {@value IdDefinition#DEFAULT_DATASOURCE}
     * @param table       the holders' table ({@code <table>_name} is the other)
     * @param leaseMillis how long a watchdog lease lasts unrenewed
     */
    record Jdbc(Optional<String> dataSource, String table, long leaseMillis) {
    }

    static final String BACKEND = "distlock.backend";
    static final String ZK = "distlock.zookeeper.";
    static final String DEFAULT_ROOT = "/distlock";
    static final long DEFAULT_SESSION_TIMEOUT_MILLIS = 15_000;
    static final long DEFAULT_CONNECTION_TIMEOUT_MILLIS = 5_000;
    static final String JDBC = "distlock.jdbc.";
    static final BackendSettings REDIS = new BackendSettings(Kind.REDIS, null, null, 0, 0, null);
    private static final String CURATOR_CLASS = "org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock";

    enum Kind {
        REDIS, ZOOKEEPER, JDBC;

        String configValue() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** @throws LockDefinitionException naming the key and the value that is wrong */
    static BackendSettings read(Config config) {
        String value = config.getOptionalValue(BACKEND, String.class).map(String::strip).orElse("redis");
        Kind kind = switch (value.toLowerCase(Locale.ROOT)) {
            case "redis" -> Kind.REDIS;
            case "zookeeper" -> Kind.ZOOKEEPER;
            case "jdbc" -> Kind.JDBC;
            default -> throw new LockDefinitionException("Config " + BACKEND + "=" + value + ": must be redis, zookeeper or jdbc");
        };
        if (kind == Kind.REDIS) {
            return REDIS;
        }
        if (kind == Kind.JDBC) {
            return new BackendSettings(kind, null, null, 0, 0, readJdbc(config));
        }
        if (!present(CURATOR_CLASS)) {
            throw new LockDefinitionException("Config " + BACKEND + "=zookeeper needs Apache Curator: add "
                    + "org.apache.curator:curator-recipes (5.x) to the application; it is not on its class path");
        }
        String connect = config.getOptionalValue(ZK + "connect", String.class).map(String::strip).filter(s -> !s.isEmpty())
                .orElseThrow(() -> new LockDefinitionException("Config " + BACKEND + "=zookeeper needs " + ZK
                        + "connect, the ensemble as host:port[,host:port...], e.g. zk1:2181,zk2:2181,zk3:2181"));
        checkConnect(connect);
        String root = config.getOptionalValue(ZK + "root", String.class).map(String::strip).orElse(DEFAULT_ROOT);
        if (!root.startsWith("/") || root.endsWith("/") || root.contains("//")) {
            throw new LockDefinitionException("Config " + ZK + "root=" + root
                    + ": must be an absolute ZooKeeper path without a trailing '/', e.g. /distlock");
        }
        long session = millis(config, ZK + "session-timeout", DEFAULT_SESSION_TIMEOUT_MILLIS);
        long connection = millis(config, ZK + "connection-timeout", DEFAULT_CONNECTION_TIMEOUT_MILLIS);
        return new BackendSettings(kind, connect, root, session, connection, null);
    }

    private static Jdbc readJdbc(Config config) {
        Optional<String> dataSource = config.getOptionalValue(JDBC + "datasource", String.class).map(String::strip)
                .filter(name -> !name.isEmpty());
        String table = config.getOptionalValue(JDBC + "table", String.class).map(String::strip).orElse("distlock_lock");
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]{0,57}")) {
            throw new LockDefinitionException("Config " + JDBC + "table=" + table
                    + ": must be a plain SQL identifier (letters, digits, _; at most 58 characters)");
        }
        long lease = millis(config, JDBC + "lease-timeout", 30_000);
        if (lease < 300) {
            throw new LockDefinitionException("Config " + JDBC + "lease-timeout=" + lease + " ms: must be at least 300 ms");
        }
        return new Jdbc(dataSource, table, lease);
    }

    private static void checkConnect(String connect) {
        String hosts = connect.contains("/") ? connect.substring(0, connect.indexOf('/')) : connect;
        for (String host : hosts.split(",")) {
            String hostPort = host.strip();
            int colon = hostPort.lastIndexOf(':');
            boolean valid = colon > 0 && colon < hostPort.length() - 1;
            if (valid) {
                try {
                    int port = Integer.parseInt(hostPort.substring(colon + 1));
                    valid = port > 0 && port < 65536;
                } catch (NumberFormatException e) {
                    valid = false;
                }
            }
            if (!valid) {
                throw new LockDefinitionException("Config " + ZK + "connect=" + connect + ": '" + hostPort
                        + "' is not host:port; expected host:port[,host:port...]");
            }
        }
    }

    private static long millis(Config config, String key, long fallback) {
        Optional<String> value = config.getOptionalValue(key, String.class);
        if (value.isEmpty()) {
            return fallback;
        }
        long millis;
        try {
            millis = Durations.parseMillis(value.get());
        } catch (IllegalArgumentException e) {
            throw new LockDefinitionException("Config " + key + "=" + value.get() + ": " + e.getMessage());
        }
        if (millis <= 0 || millis > Integer.MAX_VALUE) {
            throw new LockDefinitionException("Config " + key + "=" + value.get() + ": must be a positive duration, "
                    + "e.g. PT15S or 15000");
        }
        return millis;
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, BackendSettings.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /** For logs and readiness: where the locks are. */
    String describe() {
        return switch (kind) {
            case REDIS -> "Redis";
            case ZOOKEEPER -> "ZooKeeper (" + zooKeeperConnect + zooKeeperRoot + ")";
            case JDBC -> "the database (" + jdbc.dataSource().orElse("the application's DataSource") + ", table " + jdbc.table() + ")";
        };
    }
}
