package dev.distlock.internal.cdi.observability;

import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.IdTestDatabase;
import dev.distlock.testkit.TestRedis;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On a MicroProfile 7 runtime (OpenTelemetry metrics, no MicroProfile Metrics), what the dashboard
 * asks for exists as the application starts, before any lock is taken: the timeout and lost-lock
 * counters at zero for every mode, a gauge of the time left per Snowflake generator, the refused-range
 * counter of each segment generator at zero. Recorded by OpenTelemetry's SDK under Weld.
 */
class LockTelemetryAtStartTest {

    private static final InMemoryMetricReader READER = InMemoryMetricReader.create();

    /** The application's OpenTelemetry, as MicroProfile Telemetry 2 offers it: metrics read here. */
    @ApplicationScoped
    public static class Telemetry {
        private final SdkMeterProvider meters = SdkMeterProvider.builder().registerMetricReader(READER).build();

        @Produces
        OpenTelemetry openTelemetry() {
            return new OpenTelemetry() {
                @Override
                public TracerProvider getTracerProvider() {
                    return TracerProvider.noop();
                }

                @Override
                public MeterProvider getMeterProvider() {
                    return meters;
                }

                @Override
                public ContextPropagators getPropagators() {
                    return ContextPropagators.noop();
                }
            };
        }
    }

    @Dependent
    public static class Generators {
        @Inject @GeneratedId("order") IdGenerator orders;
        @Inject @GeneratedId(value = "invoice", strategy = IdStrategy.SEGMENT) IdGenerator invoices;
    }

    @Test
    void theDashboardsSeriesExistBeforeTheFirstLock() {
        String prefix = TestRedis.uniquePrefix("telemetry-at-start");
        try (DistlockWeld weld = IdTestDatabase.startWeld(prefix, IdTestDatabase.uniqueUrl("telemetry-at-start"), Map.of(),
                Telemetry.class, Generators.class)) {
            Map<String, MetricData> metrics = READER.collectAllMetrics().stream()
                    .collect(Collectors.toMap(MetricData::getName, data -> data, (a, b) -> a, TreeMap::new));
            for (String counter : new String[]{"distlock.lock.timeouts", "distlock.lock.lost"}) {
                MetricData data = metrics.get(counter);
                assertTrue(data != null, counter + " missing: " + metrics.keySet());
                assertEquals(Set.of("exclusive", "read", "write"), data.getLongSumData().getPoints().stream()
                        .map(point -> point.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey("mode")))
                        .collect(Collectors.toSet()), counter + ": a series per mode");
                assertTrue(data.getLongSumData().getPoints().stream().allMatch(point -> point.getValue() == 0), counter + " at zero");
            }
            MetricData layout = metrics.get("distlock.id.layout.remaining");
            assertTrue(layout != null, "no layout gauge: " + metrics.keySet());
            assertEquals("s", layout.getUnit());
            var point = layout.getDoubleGaugeData().getPoints().iterator().next();
            assertEquals("order", point.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey("generator")));
            assertTrue(point.getValue() > 10L * 365 * 24 * 3600, "years left in the default layout: " + point.getValue());
            MetricData refused = metrics.get("distlock.id.segment.refused");
            assertTrue(refused != null, "no refused-range counter: " + metrics.keySet());
            assertEquals(0, refused.getLongSumData().getPoints().iterator().next().getValue());
        }
    }
}
