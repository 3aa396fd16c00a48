package dev.distlock.internal.cdi.observability;

import dev.distlock.internal.cdi.LockEngine;
import dev.distlock.internal.cdi.RedisConnection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.util.Map;
import java.util.Optional;

/**
 * Ready while the lock store answers: Redis within a short timeout ({@code distlock-redis}), or,
 * with another backend, while that one answers ({@code distlock-zookeeper}, {@code distlock-jdbc}).
 */
@Readiness
@ApplicationScoped
public class RedisReadiness implements HealthCheck {

    static final String NAME = "distlock-redis";

    private final RedisConnection redis;
    private final LockEngine locks;

    @Inject
    RedisReadiness(RedisConnection redis, LockEngine locks) {
        this.redis = redis;
        this.locks = locks;
    }

    /** For proxies only. */
    protected RedisReadiness() {
        this.redis = null;
        this.locks = null;
    }

    @Override
    public HealthCheckResponse call() {
        if (!locks.locksInRedis()) {
            return response("distlock-" + locks.lockStoreName(), locks.lockStoreProblem());
        }
        return response(NAME, redis.problem());
    }

    private static HealthCheckResponse response(String name, Optional<String> problem) {
        // Built directly, not through HealthCheckResponse.named(): that needs the server's provider.
        return problem
                .map(error -> new HealthCheckResponse(name, HealthCheckResponse.Status.DOWN, Optional.of(Map.<String, Object>of("error", error))))
                .orElseGet(() -> new HealthCheckResponse(name, HealthCheckResponse.Status.UP, Optional.empty()));
    }
}
