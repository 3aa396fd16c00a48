package dev.distlock.redis;

import dev.distlock.LockServiceUnavailableException;
import org.redisson.api.RedissonClient;

/**
 * Where the engine gets its client. A source may build the client lazily, so that an
 * application deploys while Redis is down and locked calls fail fast until it is back.
 */
@FunctionalInterface
public interface RedisClientSource {

    /**
     * @return the client, never {@code null}
     * @throws LockServiceUnavailableException when no client can be had now
     */
    RedissonClient client();
}
