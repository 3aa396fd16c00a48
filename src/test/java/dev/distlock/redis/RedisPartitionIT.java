package dev.distlock.redis;

import dev.distlock.spi.LockBackend;
import dev.distlock.testkit.TestRedis;
import dev.distlock.testkit.backend.PartitionContract;
import org.junit.jupiter.api.AfterEach;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The partition against Redis: node A's Redisson client reaches Redis only through the cuttable
 * link. The lease of a held lock is Redisson's watchdog timeout, here the least distlock allows
 * (1 s): a cut-off holder's lock expires at most that long after its last renewal.
 */
class RedisPartitionIT extends PartitionContract {

    private static final Duration WATCHDOG = Duration.ofSeconds(1);
    private final List<RedissonClient> clients = new CopyOnWriteArrayList<>();

    @Override
    protected String storeHost() {
        return URI.create(TestRedis.url()).getHost();
    }

    @Override
    protected int storePort() {
        return URI.create(TestRedis.url()).getPort();
    }

    @Override
    protected LockBackend connect(String host, int port, long answerGraceMillis) {
        Config config = new Config();
        config.setLockWatchdogTimeout(WATCHDOG.toMillis());
        config.useSingleServer().setAddress("redis://" + host + ":" + port)
                .setTimeout(1_000).setConnectTimeout(1_000).setRetryAttempts(2).setRetryInterval(500)
                .setPingConnectionInterval(1_000);
        RedissonClient client = Redisson.create(config);
        clients.add(client);
        return new RedisBackend(() -> client, answerGraceMillis);
    }

    @Override
    protected Duration lease() {
        return WATCHDOG;
    }

    @AfterEach
    void shutDownClients() {
        clients.forEach(RedissonClient::shutdown);
    }
}
