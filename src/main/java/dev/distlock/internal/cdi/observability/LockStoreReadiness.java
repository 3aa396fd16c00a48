package dev.distlock.internal.cdi.observability;

import dev.distlock.internal.cdi.LockEngine;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.util.Map;
import java.util.Optional;

/**
 * Ready while the lock store answers, named after it: {@code distlock-redis} (Redis within a short
 * timeout), {@code distlock-zookeeper}, {@code distlock-jdbc}.
 */
@Readiness
@ApplicationScoped
public class LockStoreReadiness implements HealthCheck {

    private final LockEngine locks;

    @Inject
    LockStoreReadiness(LockEngine locks) {
        this.locks = locks;
    }

    /** For proxies only. */
    protected LockStoreReadiness() {
        this.locks = null;
    }

    @Override
    public HealthCheckResponse call() {
        try {
            return response("distlock-" + locks.lockStoreName(), locks.lockStoreProblem());
        } finally {
            locks.releaseThreadState(); // a health check runs on the server's threads
        }
    }

    private static HealthCheckResponse response(String name, Optional<String> problem) {
        // Built directly, not through HealthCheckResponse.named(): that needs the server's provider.
        return problem
                .map(error -> new HealthCheckResponse(name, HealthCheckResponse.Status.DOWN, Optional.of(Map.<String, Object>of("error", error))))
                .orElseGet(() -> new HealthCheckResponse(name, HealthCheckResponse.Status.UP, Optional.empty()));
    }
}
