package dev.distlock.runtimes;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The application's own Redis client, which distlock then uses too (one connection pool). */
@ApplicationScoped
public class Redis {

    @Inject
    @ConfigProperty(name = "distlock.redis.address")
    String address;

    @Produces
    @Singleton
    RedissonClient client() {
        Config config = new Config();
        config.useSingleServer().setAddress(address);
        return Redisson.create(config);
    }

    void close(@Disposes RedissonClient client) {
        client.shutdown();
    }
}
