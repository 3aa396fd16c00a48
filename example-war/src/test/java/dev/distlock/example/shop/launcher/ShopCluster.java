package dev.distlock.example.shop.launcher;

import dev.distlock.testkit.ParentWatch;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.RedisProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The shop on this machine: one Redis, one database and any number of Payara Micro servers that
 * share them. Redis and the database are started here unless an address is given. Every process
 * started here is stopped by {@link #close()}.
 */
public final class ShopCluster implements AutoCloseable {

    /**
     * @param payaraJar    {@code payara-micro.jar}
     * @param war          {@code shop.war}
     * @param workDir      where the servers unpack and log
     * @param startRedis   start a Redis server here; otherwise the servers take {@code distlock.redis.*}
     *                     from the environment ({@code DISTLOCK_REDIS_ADDRESS}, ...)
     * @param databaseUrl  a JDBC URL to use (credentials in it or in {@code SHOP_DATASOURCE_USER}/{@code _PASSWORD}),
     *                     or {@code null} to start an H2 server here
     * @param serverJvm    the servers' JVM options: {@link PayaraNode#SMALL_MACHINE} for tests, {@link PayaraNode#PRODUCTION}
     *                     to measure
     * @param h2Process    start the H2 server as a process of its own (its CPU time can be read), not in this JVM
     * @param java         the servers' {@code java} executable
     */
    public record Setup(Path payaraJar, Path war, Path workDir, boolean startRedis, String databaseUrl, List<String> serverJvm,
                        boolean h2Process, Path java) {
        public Setup {
            Objects.requireNonNull(payaraJar, "payaraJar");
            Objects.requireNonNull(war, "war");
            Objects.requireNonNull(workDir, "workDir");
            Objects.requireNonNull(java, "java");
            serverJvm = List.copyOf(serverJvm);
        }

        /** Servers run by the {@code java} of the JDK running this launcher. */
        public Setup(Path payaraJar, Path war, Path workDir, boolean startRedis, String databaseUrl, List<String> serverJvm,
                     boolean h2Process) {
            this(payaraJar, war, workDir, startRedis, databaseUrl, serverJvm, h2Process, PayaraNode.THIS_JAVA);
        }

        /** For the tests and {@code ./shop.sh}: small-machine servers, H2 in this JVM. */
        public Setup(Path payaraJar, Path war, Path workDir, boolean startRedis, String databaseUrl) {
            this(payaraJar, war, workDir, startRedis, databaseUrl, PayaraNode.SMALL_MACHINE, false);
        }

        /** The same setup with another Payara Micro, run by another {@code java} (Payara Micro 7 needs a JDK 21+). */
        public Setup on(Path otherPayaraJar, Path otherJava) {
            return new Setup(otherPayaraJar, war, workDir, startRedis, databaseUrl, serverJvm, h2Process, otherJava);
        }
    }

    private final Setup setup;
    private final RedisProcess redis;
    private final ShopDatabase database;
    private final Path agentJar;
    private final List<PayaraNode> servers = new CopyOnWriteArrayList<>();

    private ShopCluster(Setup setup, RedisProcess redis, ShopDatabase database, Path agentJar) {
        this.setup = setup;
        this.redis = redis;
        this.database = database;
        this.agentJar = agentJar;
    }

    /** Starts Redis and the database where the setup names none. */
    public static ShopCluster start(Setup setup) {
        for (Path required : List.of(setup.payaraJar(), setup.war())) {
            if (!Files.isRegularFile(required)) {
                throw new IllegalArgumentException(required + " does not exist; build the example first (mvn package)");
            }
        }
        Path workDir;
        try {
            workDir = Files.createDirectories(setup.workDir());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RedisProcess redis = null;
        ShopDatabase database = null;
        try {
            redis = setup.startRedis() ? RedisProcess.start(Ports.free()) : null;
            database = setup.databaseUrl() != null ? ShopDatabase.external(setup.databaseUrl())
                    : setup.h2Process() ? ShopDatabase.startH2Process(Ports.free(), workDir) : ShopDatabase.startH2(Ports.free());
            return new ShopCluster(setup, redis, database, ParentWatch.writeAgentJar(workDir));
        } catch (RuntimeException e) {
            if (database != null) {
                database.close();
            }
            if (redis != null) {
                redis.close();
            }
            throw e;
        }
    }

    /**
     * Starts {@code count} servers at once and waits until each answers. On failure, the servers
     * started here are stopped and the exception carries their logs.
     *
     * @param names      the servers' names; the first {@code count} are used
     * @param firstPort  the port for the first server if it is free (0: any free port); the others get free ports
     * @param properties configuration for every server, on top of Redis and database
     */
    public List<PayaraNode> startServers(List<String> names, int firstPort, Map<String, String> properties,
                                         Duration timeout) throws InterruptedException {
        return startServers(names, firstPort, properties, List.of(), timeout);
    }

    /** @param extraJvm JVM options for these servers, after the setup's (e.g. a flight recording) */
    public List<PayaraNode> startServers(List<String> names, int firstPort, Map<String, String> properties,
                                         List<String> extraJvm, Duration timeout) throws InterruptedException {
        Map<String, Map<String, String>> each = new LinkedHashMap<>();
        names.forEach(name -> each.put(name, properties));
        return startServers(each, firstPort, extraJvm, timeout);
    }

    /**
     * Starts a server per entry of {@code propertiesByName} at once, each with its own
     * configuration on top of Redis and the database, and waits until each answers: two servers
     * started together take little longer than one. On failure, the servers started here are
     * stopped and the exception carries their logs.
     *
     * @param firstPort the port for the first server if it is free (0: any free port); the others get free ports
     */
    public List<PayaraNode> startServers(Map<String, Map<String, String>> propertiesByName, int firstPort,
                                         List<String> extraJvm, Duration timeout) throws InterruptedException {
        List<String> jvm = new ArrayList<>(setup.serverJvm());
        jvm.addAll(extraJvm);
        Map<String, String> configuration = new HashMap<>();
        if (redis != null) {
            configuration.put("distlock.redis.address", redis.url());
        }
        configuration.putAll(database.shopProperties());
        List<PayaraNode> started = new ArrayList<>();
        try {
            for (Map.Entry<String, Map<String, String>> server : propertiesByName.entrySet()) {
                String name = server.getKey();
                int port = started.isEmpty() ? Ports.preferred(firstPort) : Ports.free();
                Map<String, String> own = new HashMap<>(configuration);
                own.putAll(server.getValue());
                // Each server goes by its own name in the lock store (both run on this host, whose name they would share).
                own.putIfAbsent("distlock.node-name", name);
                PayaraNode node = PayaraNode.start(name, port, setup.java(), setup.payaraJar(), setup.war(), setup.workDir(),
                        agentJar, jvm, own);
                started.add(node);
                servers.add(node);
            }
            for (PayaraNode node : started) {
                node.awaitReady(timeout);
            }
            return List.copyOf(started);
        } catch (RuntimeException | InterruptedException e) {
            stopServers(started);
            throw e;
        }
    }

    public void stopServers(List<PayaraNode> nodes) {
        nodes.parallelStream().forEach(PayaraNode::close);
        servers.removeAll(nodes);
    }

    /** The Redis started here, or {@code null} when the setup named one. */
    public RedisProcess redis() {
        return redis;
    }

    /** Where the servers find Redis, for people to read. */
    public String describeRedis() {
        if (redis != null) {
            return "redis-server " + redis.url() + " (started here)";
        }
        String address = System.getenv("DISTLOCK_REDIS_ADDRESS");
        return address != null ? "Redis " + address.replaceAll("//[^@/]*@", "//") + " (DISTLOCK_REDIS_ADDRESS)"
                : "Redis from the environment (DISTLOCK_REDIS_*)";
    }

    public ShopDatabase database() {
        return database;
    }

    @Override
    public void close() {
        try {
            stopServers(List.copyOf(servers));
        } finally {
            try {
                database.close();
            } finally {
                if (redis != null) {
                    redis.close();
                }
            }
        }
    }
}
