package dev.distlock.bench;

import dev.distlock.DistributedLocks;
import dev.distlock.bench.BackendStore.Locker;
import dev.distlock.bench.BackendStore.Node;
import dev.distlock.spi.LockBackend;
import dev.distlock.redis.RedisBackend;
import dev.distlock.jdbc.JdbcBackend;
import dev.distlock.zookeeper.ZooKeeperBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.h2.jdbcx.JdbcConnectionPool;
import org.postgresql.ds.PGConnectionPoolDataSource;

import javax.sql.ConnectionPoolDataSource;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import javax.sql.DataSource;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

/**
 * {@link BackendDriver}'s three stores, each with distlock's backend and the lock a user of that
 * store would pick instead: Redis (raw Redisson's {@code RLock}), ZooKeeper (Curator's test server
 * in this JVM, Curator's {@link InterProcessMutex}), and the database (an H2 TCP server in this
 * JVM, or PostgreSQL when {@code DISTLOCK_BENCH_POSTGRES_URL} names one; {@code SELECT … FOR UPDATE}
 * in a transaction).
 */
final class BackendStores {

    private BackendStores() {
    }

    /** A step of a baseline lock that may throw. */
    private interface Step {
        void run() throws Exception;
    }

    /** Makes one thread's baseline locker. */
    private interface Baseline {
        Locker make() throws Exception;
    }

    /** A node: distlock's locks over its own connection, the baseline, and what to close after them. */
    private record LockNode(Baseline baselines, DistributedLocks locks, AutoCloseable resources) implements Node {
        @Override
        public Locker baseline() throws Exception {
            return baselines.make();
        }

        @Override
        public Locker distlock() {
            return section -> locks.exclusive("key").waitForever().run(section);
        }

        @Override
        public void close() throws Exception {
            locks.close();
            resources.close();
        }
    }

    /** {@code lock}, the section, then {@code unlock} whatever the section did. */
    private static Locker around(Step lock, Step unlock) {
        return section -> {
            lock.run();
            try {
                section.run();
            } finally {
                unlock.run();
            }
        };
    }

    static BackendStore redis(String url) {
        return new BackendStore() {
            @Override
            public String name() {
                return "Redis";
            }

            @Override
            public String baselineName() {
                return "Redisson RLock";
            }

            @Override
            public Node node() {
                RedissonClient client = BenchRedis.newClient(url, 64);
                DistributedLocks locks = DistributedLocks.builder(new RedisBackend(() -> client, 5_000)).keyPrefix("bench-backends").build();
                RLock raw = client.getLock("bench-backends:raw:key");
                return new LockNode(() -> around(raw::lock, raw::unlock), locks, client::shutdown);
            }

            @Override
            public void close() {
            }
        };
    }

    static BackendStore zooKeeper() throws Exception {
        TestingServer server = new TestingServer(true);
        return new BackendStore() {
            @Override
            public String name() {
                return "ZooKeeper";
            }

            @Override
            public String baselineName() {
                return "Curator InterProcessMutex";
            }

            @Override
            public Node node() {
                CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(), 15_000, 5_000,
                        new ExponentialBackoffRetry(100, 3));
                client.start();
                DistributedLocks locks = DistributedLocks.builder(new ZooKeeperBackend(client, "/bench-distlock", false, 15_000, 5_000))
                        .build();
                InterProcessMutex raw = new InterProcessMutex(client, "/bench-raw/key");
                return new LockNode(() -> around(raw::acquire, raw::release), locks, client::close);
            }

            @Override
            public void close() throws Exception {
                server.close();
            }
        };
    }

    static BackendStore database() throws Exception {
        String postgres = System.getenv("DISTLOCK_BENCH_POSTGRES_URL");
        Server h2 = null;
        String url;
        if (postgres != null && !postgres.isBlank()) {
            url = postgres.strip();
        } else {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            h2 = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
            url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:bench;DB_CLOSE_DELAY=-1";
        }
        DataSource setup = dataSource(url);
        try (Connection connection = setup.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS bench_row (id INT PRIMARY KEY, n BIGINT NOT NULL)");
            statement.execute("DELETE FROM bench_row");
            statement.execute("INSERT INTO bench_row (id, n) VALUES (1, 0)");
            statement.execute("DROP TABLE IF EXISTS bench_lock");
            statement.execute("DROP TABLE IF EXISTS bench_lock_name");
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        }
        Server server = h2;
        String kind = url.startsWith("jdbc:postgresql") ? "PostgreSQL" : "H2 (TCP)";
        return new BackendStore() {
            @Override
            public String name() {
                return "database: " + kind;
            }

            @Override
            public String baselineName() {
                return "SELECT … FOR UPDATE";
            }

            @Override
            public Node node() {
                DataSource dataSource = dataSource(url);
                DistributedLocks locks = DistributedLocks.builder((LockBackend) new JdbcBackend(dataSource, "bench_lock", 30_000, 5_000))
                        .build();
                List<Connection> connections = new java.util.concurrent.CopyOnWriteArrayList<>();
                return new LockNode(() -> {
                    Connection connection = dataSource.getConnection(); // one per thread, kept, as a pool would
                    connections.add(connection);
                    connection.setAutoCommit(false);
                    PreparedStatement select = connection.prepareStatement("SELECT n FROM bench_row WHERE id = 1 FOR UPDATE");
                    return section -> {
                        try (ResultSet row = select.executeQuery()) {
                            row.next();
                            section.run();
                        }
                        connection.commit();
                    };
                }, locks, () -> {
                    for (Connection connection : connections) {
                        connection.close();
                    }
                });
            }

            @Override
            public void close() {
                if (server != null) {
                    server.stop();
                }
            }
        };
    }

    /** A pooled data source, as an application server gives one: both sides reuse their connections. */
    private static DataSource dataSource(String url) {
        ConnectionPoolDataSource physical;
        if (url.startsWith("jdbc:postgresql")) {
            PGConnectionPoolDataSource postgres = new PGConnectionPoolDataSource();
            postgres.setURL(url);
            physical = postgres;
        } else {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL(url);
            physical = h2;
        }
        JdbcConnectionPool pool = JdbcConnectionPool.create(physical);
        pool.setMaxConnections(64);
        return pool;
    }
}
