package dev.distlock.testing;

import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import org.redisson.api.RedissonClient;

/**
 * The application's own {@link RedissonClient}, as a user would produce it; distlock uses it
 * instead of building one. Points at {@link TestRedis}.
 */
@ApplicationScoped
public class TestRedisClient {

    @Produces
    @ApplicationScoped
    RedissonClient client() {
        return TestRedis.newClient();
    }

    void close(@Disposes RedissonClient client) {
        client.shutdown();
    }
}
