package dev.distlock.internal.cdi.observability;

import dev.distlock.internal.cdi.IdGenerators;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * When each Snowflake layout in use runs out of time bits: {@code distlock-id-layout} says it for
 * every generator, adds a {@code warning} once one is within its {@code layout-warning} (default a
 * year), and is DOWN once one has run out (that generator issues no more ids). Not only at
 * deployment: a server that runs for a year learns it too.
 */
@Readiness
@ApplicationScoped
public class IdLayoutReadiness implements HealthCheck {

    static final String NAME = "distlock-id-layout";

    private final IdGenerators generators;
    private final Clock clock;

    @Inject
    IdLayoutReadiness(IdGenerators generators) {
        this(generators, Clock.systemUTC());
    }

    IdLayoutReadiness(IdGenerators generators, Clock clock) {
        this.generators = generators;
        this.clock = clock;
    }

    /** For proxies only. */
    protected IdLayoutReadiness() {
        this.generators = null;
        this.clock = null;
    }

    @Override
    public HealthCheckResponse call() {
        Instant now = clock.instant();
        Map<String, Object> data = new LinkedHashMap<>();
        StringBuilder warning = new StringBuilder();
        boolean ranOut = false;
        for (IdGenerators.LayoutLife life : generators.snowflakeLayouts()) {
            data.put(life.generator(), "runs out at " + life.end());
            if (!life.end().isAfter(now)) {
                ranOut = true;
                append(warning, "'" + life.generator() + "' ran out at " + life.end() + " and issues no ids");
            } else if (!now.isBefore(life.warnFrom())) {
                append(warning, "'" + life.generator() + "' runs out in " + Duration.between(now, life.end()).toDays()
                        + " days (" + life.end() + "): plan a later epoch or more time bits");
            }
        }
        if (!warning.isEmpty()) {
            data.put("warning", warning.toString());
        }
        return new HealthCheckResponse(NAME, ranOut ? HealthCheckResponse.Status.DOWN : HealthCheckResponse.Status.UP,
                data.isEmpty() ? Optional.empty() : Optional.of(data));
    }

    private static void append(StringBuilder text, String part) {
        if (!text.isEmpty()) {
            text.append("; ");
        }
        text.append(part);
    }
}
