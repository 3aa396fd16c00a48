package dev.distlock.redis;

import dev.distlock.internal.core.*;
import dev.distlock.testkit.backend.*;
import dev.distlock.spi.LockBackend;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.redisson.api.RedissonClient;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The contract against Redis: each connection a Redisson client of its own. */
class RedisBackendContractTest extends LockBackendContract {

    private final List<RedissonClient> clients = new CopyOnWriteArrayList<>();

    @Override
    protected LockBackend connect() {
        RedissonClient client = TestRedis.newClient();
        clients.add(client);
        return new RedisBackend(() -> client, 5_000);
    }

    /**
     * Through a client whose connection breaks as Redis's reply to the lock's script comes back
     * ({@link LostLockReplies}): Redis took the lock, the client never hears it.
     */
    @Override
    protected LostGrantAnswer connectLosingTheAnswerToTheNextGrantOf(String name) {
        LostLockReplies replies = new LostLockReplies(name);
        RedissonClient client = TestRedis.newClient(config -> config.setNettyHook(replies));
        clients.add(client);
        return new LostGrantAnswer(new RedisBackend(() -> client, 5_000), replies::grantLost);
    }

    @Override
    protected void lose(String name) {
        TestRedis.sharedClient().getKeys().delete(name);
    }

    @AfterEach
    void closeClients() {
        clients.forEach(RedissonClient::shutdown);
    }
}
