package dev.distlock.example.shop.e2e;

import dev.distlock.example.shop.launcher.PayaraNode;
import dev.distlock.example.shop.launcher.ShopCluster;
import dev.distlock.testkit.PartitionProxy;
import dev.distlock.testkit.Resp;

import java.net.InetAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two Payara Micro servers sharing one Redis and one database, for one test class. The database is
 * an H2 server of the test's own unless {@code DISTLOCK_TEST_POSTGRES_URL} or
 * {@code DISTLOCK_TEST_MARIADB_URL} names one (a JDBC URL with its credentials).
 */
final class E2eShop implements AutoCloseable {

    static final String POSTGRES_URL_VARIABLE = "DISTLOCK_TEST_POSTGRES_URL";
    static final String MARIADB_URL_VARIABLE = "DISTLOCK_TEST_MARIADB_URL";
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);

    private final ShopCluster cluster;
    private final List<PayaraNode> servers = new CopyOnWriteArrayList<>();

    private E2eShop(ShopCluster cluster) {
        this.cluster = cluster;
    }

    /** Starts Redis, the database and two servers with {@code properties}; logs go to {@code target/e2e/<name>}. */
    static E2eShop start(String name, Map<String, String> properties) throws InterruptedException {
        return start(name, properties, externalDatabaseUrl());
    }

    /** As {@link #start(String, Map)}, on the database {@code databaseUrl} names; {@code null}: an H2 server of its own. */
    static E2eShop start(String name, Map<String, String> properties, String databaseUrl) throws InterruptedException {
        return startTwo(new E2eShop(ShopCluster.start(setup(name, databaseUrl))), name, properties);
    }

    /**
     * As {@link #start(String, Map)}, the servers being {@code payaraJar} run by {@code java}: another
     * Payara Micro on another JDK (Payara Micro 7 needs a JDK 21 or later).
     */
    static E2eShop startOn(Path payaraJar, Path java, String name, Map<String, String> properties) throws InterruptedException {
        return startTwo(new E2eShop(ShopCluster.start(setup(name, externalDatabaseUrl()).on(payaraJar, java))), name, properties);
    }

    private static E2eShop startTwo(E2eShop shop, String name, Map<String, String> properties) throws InterruptedException {
        try {
            long started = System.nanoTime();
            shop.servers.addAll(shop.cluster.startServers(List.of(name + "-1", name + "-2"), 0, properties, START_TIMEOUT));
            System.out.printf("[e2e] %s: 2 Payara Micro servers answered after %d s (%s, %s)%n", name,
                    Duration.ofNanos(System.nanoTime() - started).toSeconds(), shop.cluster.describeRedis(),
                    shop.cluster.database().describe());
            return shop;
        } catch (RuntimeException | InterruptedException e) {
            shop.close();
            throw e;
        }
    }

    /** Redis and the database only; {@link #addServers} adds servers, each with properties of its own. */
    static E2eShop withoutServers(String name, String databaseUrl) {
        return new E2eShop(ShopCluster.start(setup(name, databaseUrl)));
    }

    /** Redis and the database only, for servers that are {@code payaraJar} run by {@code java}, added with {@link #addServers}. */
    static E2eShop withoutServersOn(Path payaraJar, Path java, String name) {
        return new E2eShop(ShopCluster.start(setup(name, externalDatabaseUrl()).on(payaraJar, java)));
    }

    private static ShopCluster.Setup setup(String name, String databaseUrl) {
        return new ShopCluster.Setup(path("shop.payara-micro"), path("shop.war"), path("shop.work-dir").resolve(name), true,
                databaseUrl);
    }

    /**
     * Starts a server per entry of {@code propertiesByName}, each with its own properties, all at
     * once, and waits until each answers; returned in the map's order.
     */
    List<PayaraNode> addServers(Map<String, Map<String, String>> propertiesByName) throws InterruptedException {
        List<PayaraNode> started = cluster.startServers(propertiesByName, 0, List.of(), START_TIMEOUT);
        servers.addAll(started);
        return started;
    }

    List<PayaraNode> servers() {
        return servers;
    }

    String url(int server) {
        return servers.get(server).url();
    }

    /** The servers' names, each also its {@code distlock.node-name} (set by {@link ShopCluster#startServers}). */
    List<String> names() {
        return servers.stream().map(PayaraNode::name).toList();
    }

    ShopCluster cluster() {
        return cluster;
    }

    /** Closes each of {@code closeables} that is there, going on past failures (reported on stderr). */
    static void closeAll(AutoCloseable... closeables) {
        for (AutoCloseable closeable : closeables) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception e) {
                System.err.println("closing " + closeable + ": " + e);
            }
        }
    }

    /** A SKU no earlier run used, so that a shared external database needs no cleaning. */
    /**
     * The shortest watchdog lease distlock allows (1 s), with Redis commands answered or given up
     * soon enough that one slow renewal still ends within it: 200 ms, one retry 100 ms later.
     */
    static Map<String, String> shortestWatchdog() {
        return Map.of("distlock.redis.watchdog-timeout", "PT1S", "distlock.redis.timeout", "PT0.2S",
                "distlock.redis.retry-attempts", "1", "distlock.redis.retry-delay", "PT0.1S");
    }

    static String uniqueSku(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
    }

    /**
     * What the database itself says about a SKU, read without the shop: its stock (its row's plus
     * its stripes'), how many stripes hold it (0: unstriped), and its orders.
     */
    record Ledger(int stock, int stripes, long orders, long distinctIds, long unitsOrdered) {
    }

    Ledger ledger(String sku) throws SQLException {
        try (Connection connection = cluster.database().connect()) {
            int stock;
            try (PreparedStatement query = connection.prepareStatement("select stock from shop_stock where sku = ?")) {
                query.setString(1, sku);
                try (ResultSet row = query.executeQuery()) {
                    stock = row.next() ? row.getInt(1) : -1;
                }
            }
            int stripes;
            try (PreparedStatement query = connection.prepareStatement(
                    "select count(*), coalesce(sum(stock), 0), coalesce(min(stock), 0) from shop_stock_stripe where sku = ?")) {
                query.setString(1, sku);
                try (ResultSet row = query.executeQuery()) {
                    row.next();
                    stripes = row.getInt(1);
                    stock += row.getInt(2);
                    if (row.getInt(3) < 0) {
                        throw new AssertionError("a stripe of " + sku + " holds " + row.getInt(3) + " units");
                    }
                }
            }
            try (PreparedStatement query = connection.prepareStatement(
                    "select count(*), count(distinct id), coalesce(sum(quantity), 0) from shop_order where sku = ?")) {
                query.setString(1, sku);
                try (ResultSet row = query.executeQuery()) {
                    row.next();
                    return new Ledger(stock, stripes, row.getLong(1), row.getLong(2), row.getLong(3));
                }
            }
        }
    }

    /** The fencing token of the last locked write of a SKU's stock, read without the shop. */
    long fence(String sku) throws SQLException {
        try (Connection connection = cluster.database().connect();
             PreparedStatement query = connection.prepareStatement("select fence from shop_stock where sku = ?")) {
            query.setString(1, sku);
            try (ResultSet row = query.executeQuery()) {
                return row.next() ? row.getLong(1) : -1;
            }
        }
    }

    /** Whether the lock hash {@code key} in Redis names a holder other than {@code field}. */
    boolean heldByOtherThan(String key, String field) {
        try (Resp redis = Resp.connect(cluster.redis().port(), 5_000)) {
            return redis.hgetall(key).keySet().stream().anyMatch(holder -> !holder.equals(field));
        }
    }

    /** Whether {@code key} exists in Redis. */
    boolean inRedis(String key) {
        try (Resp redis = Resp.connect(cluster.redis().port(), 5_000)) {
            return redis.exists(key);
        }
    }

    /** The end of every server's log, for a failure report. */
    String logs() {
        StringBuilder logs = new StringBuilder();
        for (PayaraNode server : servers) {
            logs.append("\n----- ").append(server.name()).append(" (").append(server.log()).append(", ")
                    .append(server.isAlive() ? "running" : "exited").append(") -----\n").append(server.logTail(150));
        }
        return logs.toString();
    }

    @Override
    public void close() {
        cluster.close();
    }

    /** A path failsafe passes as a system property. */
    static Path path(String property) {
        String value = System.getProperty(property);
        if (value == null) {
            throw new IllegalStateException("system property " + property + " is not set; run the end-to-end tests with "
                    + "mvn verify in example-war (failsafe sets it)");
        }
        return Path.of(value);
    }

    static String externalDatabaseUrl() {
        for (String variable : List.of(POSTGRES_URL_VARIABLE, MARIADB_URL_VARIABLE)) {
            String url = System.getenv(variable);
            if (url != null && !url.isBlank()) {
                return url.strip();
            }
        }
        return null;
    }

    private static final Pattern HOST_PORT = Pattern.compile("//([^/:;?]+):(\\d+)");

    /** The port of a database on this machine that {@code url} names, for a proxy in front of it. */
    static int databasePort(String url) {
        Matcher matcher = HOST_PORT.matcher(url);
        if (!matcher.find() || !InetAddress.getLoopbackAddress().getHostAddress().equals(matcher.group(1))
                && !matcher.group(1).equals("localhost")) {
            throw new IllegalStateException("the test proxies a database on this machine (127.0.0.1:port), not " + url);
        }
        return Integer.parseInt(matcher.group(2));
    }

    /** {@code url} pointed at {@code proxy} instead of the database. */
    static String throughProxy(String url, PartitionProxy proxy) {
        return HOST_PORT.matcher(url).replaceFirst("//127.0.0.1:" + proxy.port());
    }
}
