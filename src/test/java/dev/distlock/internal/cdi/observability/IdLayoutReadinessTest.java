package dev.distlock.internal.cdi.observability;

import dev.distlock.internal.cdi.IdGenerators;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.testing.DistlockWeld;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code distlock-id-layout}: every Snowflake layout's end, a warning once one is within its
 * {@code layout-warning}, DOWN once one has run out — while the application runs, not only at deployment.
 */
class IdLayoutReadinessTest {

    @ApplicationScoped
    public static class Generators {
        @Inject @GeneratedId(value = "orders", strategy = IdStrategy.SNOWFLAKE) IdGenerator orders;
        @Inject @GeneratedId(value = "soon", strategy = IdStrategy.SNOWFLAKE) IdGenerator soon;
    }

    /** "soon": 35 time bits (about 398 days) from an epoch 200 days ago: it runs out in about 198 days. */
    private static Map<String, String> config() {
        Map<String, String> config = new HashMap<>();
        config.put("distlock.id.orders.worker-id", "1");
        config.put("distlock.id.soon.worker-id", "2");
        config.put("distlock.id.soon.time-bits", "35");
        config.put("distlock.id.soon.sequence-bits", "18");
        config.put("distlock.id.soon.epoch", Instant.now().minus(Duration.ofDays(200)).toString());
        return config;
    }

    private static HealthCheckResponse readiness(DistlockWeld weld) {
        return weld.container().select(IdLayoutReadiness.class, Readiness.Literal.INSTANCE).get().call();
    }

    @Test
    void aLayoutWithinItsWarningIsNamedAndReadinessStaysUp() {
        try (DistlockWeld weld = DistlockWeld.start(config(), Generators.class)) {
            HealthCheckResponse response = readiness(weld);
            assertEquals("distlock-id-layout", response.getName());
            assertEquals(HealthCheckResponse.Status.UP, response.getStatus());
            Map<String, Object> data = response.getData().orElseThrow();
            assertTrue(data.get("orders").toString().startsWith("runs out at 2089-"), data.toString());
            String warning = data.get("warning").toString();
            assertTrue(warning.contains("'soon' runs out in 19"), warning);
            assertFalse(warning.contains("'orders'"), warning);
        }
    }

    @Test
    void aShorterWarningSaysNothingYet() {
        Map<String, String> config = config();
        config.put("distlock.id.soon.layout-warning", "P30D");
        try (DistlockWeld weld = DistlockWeld.start(config, Generators.class)) {
            HealthCheckResponse response = readiness(weld);
            assertEquals(HealthCheckResponse.Status.UP, response.getStatus());
            assertFalse(response.getData().orElseThrow().containsKey("warning"), response.getData().toString());
        }
    }

    @Test
    void aLayoutThatHasRunOutWhileTheApplicationRunsTurnsReadinessDown() {
        try (DistlockWeld weld = DistlockWeld.start(config(), Generators.class)) {
            Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(250)), ZoneOffset.UTC);
            HealthCheckResponse response = new IdLayoutReadiness(weld.bean(IdGenerators.class), later).call();
            assertEquals(HealthCheckResponse.Status.DOWN, response.getStatus());
            assertTrue(response.getData().orElseThrow().get("warning").toString().contains("'soon' ran out at"),
                    response.getData().toString());
        }
    }

    @Test
    void aBadWarningFailsTheDeploymentNamingTheKey() {
        Map<String, String> config = config();
        config.put("distlock.id.soon.layout-warning", "-P1D");
        Exception failure = assertThrows(Exception.class, () -> DistlockWeld.start(config, Generators.class).close());
        assertTrue(DistlockWeld.messages(failure).contains("layout-warning"), DistlockWeld.messages(failure));
    }
}
