package check;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import dev.distlock.jdbc.JdbcLocks;
import dev.distlock.spi.LockBackendProvider;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.zookeeper.ZooKeeperLocks;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What a user of the staged artifacts writes first: the builders without CDI, over Redis
 * ({@code DistributedLocks}), a database ({@code JdbcLocks}) and ZooKeeper ({@code ZooKeeperLocks}). Four threads add to a counter by read-modify-write inside the
 * lock; the count comes out exact only if the lock excludes. Exits non-zero otherwise.
 */
public final class StagedArtifactsMain {

    private static final int THREADS = 4;
    private static final int ROUNDS = 250;

    public static void main(String[] args) throws Exception {
        boolean exact = true;
        try (RedisProcess redis = RedisProcess.startOnFreePort()) {
            Config config = new Config();
            config.useSingleServer().setAddress(redis.url());
            RedissonClient redisson = Redisson.create(config);
            try (DistributedLocks locks = RedisLocks.builder(redisson).keyPrefix("staged-check").build()) {
                exact &= count("Redis " + redis.url(), locks);
            } finally {
                redisson.shutdown();
            }
        }

        JdbcDataSource database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:staged-check;DB_CLOSE_DELAY=-1");
        try (DistributedLocks locks = JdbcLocks.builder(database).build()) {
            exact &= count("database (H2)", locks);
        }

        try (TestingServer zooKeeper = new TestingServer(true);
             CuratorFramework curator = CuratorFrameworkFactory.newClient(zooKeeper.getConnectString(),
                     new ExponentialBackoffRetry(100, 3))) {
            curator.start();
            try (DistributedLocks locks = ZooKeeperLocks.builder(curator).build()) {
                exact &= count("ZooKeeper " + zooKeeper.getConnectString(), locks);
            }
        }

        List<String> providers = new ArrayList<>();
        ServiceLoader.load(LockBackendProvider.class).forEach(provider -> providers.add(provider.name()));
        System.out.println("backends found by distlock.backend: " + providers);
        if (!exact || !providers.contains("redis") || !providers.contains("jdbc") || !providers.contains("zookeeper")) {
            System.out.println("FAILED");
            System.exit(1);
        }
        System.out.println("OK");
    }

    private static boolean count(String store, DistributedLocks locks) throws Exception {
        long[] counter = {0};
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(threads.submit(() -> {
                    for (int i = 0; i < ROUNDS; i++) {
                        locks.exclusive("counter").run(() -> {
                            long read = counter[0];
                            Thread.yield();
                            counter[0] = read + 1;
                        });
                    }
                }));
            }
            for (Future<?> each : done) {
                each.get();
            }
        } finally {
            threads.shutdown();
        }
        long expected = (long) THREADS * ROUNDS;
        System.out.println(store + ": " + counter[0] + " of " + expected + " increments under the lock");
        return counter[0] == expected;
    }
}
