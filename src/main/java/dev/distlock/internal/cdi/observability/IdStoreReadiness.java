package dev.distlock.internal.cdi.observability;

import dev.distlock.internal.cdi.IdGenerators;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.util.Map;
import java.util.Optional;

/** Ready while the database of every segment id generator in use answers. */
@Readiness
@ApplicationScoped
public class IdStoreReadiness implements HealthCheck {

    static final String NAME = "distlock-id-store";

    private final IdGenerators generators;

    @Inject
    IdStoreReadiness(IdGenerators generators) {
        this.generators = generators;
    }

    /** For proxies only. */
    protected IdStoreReadiness() {
        this.generators = null;
    }

    @Override
    public HealthCheckResponse call() {
        Map<String, String> problems = generators.storeProblems();
        return new HealthCheckResponse(NAME, problems.isEmpty() ? HealthCheckResponse.Status.UP : HealthCheckResponse.Status.DOWN,
                problems.isEmpty() ? Optional.empty() : Optional.of(Map.copyOf(problems)));
    }
}
