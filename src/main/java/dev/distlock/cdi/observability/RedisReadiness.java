package dev.distlock.cdi.observability;

import dev.distlock.cdi.RedisConnection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.util.Map;
import java.util.Optional;

/** Ready while Redis answers within a short timeout: locked calls can be served. */
@Readiness
@ApplicationScoped
public class RedisReadiness implements HealthCheck {

    static final String NAME = "distlock-redis";

    private final RedisConnection redis;

    @Inject
    RedisReadiness(RedisConnection redis) {
        this.redis = redis;
    }

    /** For proxies only. */
    protected RedisReadiness() {
        this.redis = null;
    }

    @Override
    public HealthCheckResponse call() {
        // Built directly, not through HealthCheckResponse.named(): that needs the server's provider.
        return redis.problem()
                .map(problem -> new HealthCheckResponse(NAME, HealthCheckResponse.Status.DOWN, Optional.of(Map.<String, Object>of("error", problem))))
                .orElseGet(() -> new HealthCheckResponse(NAME, HealthCheckResponse.Status.UP, Optional.empty()));
    }
}
