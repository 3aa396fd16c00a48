package dev.distlock.internal.cdi.observability;

import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.internal.cdi.IdGenerators;
import dev.distlock.internal.cdi.Memo;
import dev.distlock.internal.id.RangeRefused;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.DoubleHistogramBuilder;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Lock metrics through MicroProfile Telemetry (OpenTelemetry), where the runtime has it:
 * {@code distlock.lock.wait} and {@code distlock.lock.hold} histograms in seconds,
 * {@code distlock.lock.timeouts} and {@code distlock.lock.lost} counters, with the attributes
 * {@code mode} ({@code exclusive}, {@code read}, {@code write}) and {@code method}, the locked
 * method that took the lock ({@code Shop.order(String,int)}; {@code DistributedLocks.exclusive(...)}
 * for the programmatic API). Not the key: keys carry user values and would grow the series without
 * bound. As with MicroProfile Metrics ({@link LockMetrics}), the two counters have a series per
 * mode at zero from the start, each Snowflake generator a {@code distlock.id.layout.remaining}
 * gauge in seconds and each segment generator a {@code distlock.id.segment.refused} counter, by
 * {@code generator}: the dashboard answers the same on a MicroProfile 7 runtime.
 */
@ApplicationScoped
public class LockTelemetry implements LockListener {

    private static final System.Logger LOG = System.getLogger(LockTelemetry.class.getName());
    private static final AttributeKey<String> MODE = AttributeKey.stringKey("mode");
    private static final AttributeKey<String> METHOD = AttributeKey.stringKey("method");
    private static final AttributeKey<String> GENERATOR = AttributeKey.stringKey("generator");
    private static final double NANOS_PER_SECOND = 1_000_000_000d;
    /** Seconds: OpenTelemetry's default buckets (0 to 10,000) are made for milliseconds. */
    private static final List<Double> BUCKETS = List.of(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
            10.0, 30.0, 60.0);

    private final Supplier<Instruments> instruments;

    /** The API may be present without an implementation: then nothing is recorded. */
    @Inject
    LockTelemetry(Instance<OpenTelemetry> telemetry) {
        this.instruments = new Memo<>(() -> instrumentsOf(telemetry));
    }

    /** For proxies only. */
    protected LockTelemetry() {
        this.instruments = null;
    }

    private record Instruments(Meter meter, DoubleHistogram waits, DoubleHistogram holds, LongCounter timeouts, LongCounter lost,
                               LongCounter refused, Map<LockMode, Map<String, Attributes>> attributes) {
        /** One set per mode and site, made once: the sites are the application's locked methods. */
        Attributes of(LockMode mode, String site) {
            Map<String, Attributes> bySite = attributes.get(mode);
            Attributes known = bySite.get(site); // no capturing lambda per lock event once the set exists
            return known != null ? known
                    : bySite.computeIfAbsent(site, method -> Attributes.of(MODE, mode.name().toLowerCase(Locale.ROOT), METHOD, method));
        }
    }

    private static Instruments instrumentsOf(Instance<OpenTelemetry> telemetry) {
        try {
            return telemetry.isResolvable() ? create(telemetry.get().getMeter("dev.distlock")) : null;
        } catch (RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.WARNING, "distlock: no lock metrics through OpenTelemetry: " + e);
            return null;
        }
    }

    private static Instruments create(Meter meter) {
        Map<LockMode, Map<String, Attributes>> attributes = new EnumMap<>(LockMode.class);
        for (LockMode mode : LockMode.values()) {
            attributes.put(mode, new ConcurrentHashMap<>());
        }
        return new Instruments(meter, histogram(meter, "distlock.lock.wait", "Time spent waiting for a distributed lock"),
                histogram(meter, "distlock.lock.hold", "Time a distributed lock was held"),
                meter.counterBuilder("distlock.lock.timeouts").setDescription("Distributed locks not had within their wait time").build(),
                meter.counterBuilder("distlock.lock.lost").setDescription("Distributed locks found gone while or after their work ran").build(),
                meter.counterBuilder("distlock.id.segment.refused")
                        .setDescription("Segment id ranges refused because the database handed out ids the generator already had").build(),
                attributes);
    }

    private static DoubleHistogram histogram(Meter meter, String name, String description) {
        DoubleHistogramBuilder builder = meter.histogramBuilder(name).setUnit("s").setDescription(description);
        try {
            builder = builder.setExplicitBucketBoundariesAdvice(BUCKETS);
        } catch (LinkageError olderApi) {
            // An API before 1.32 has no bucket advice: the runtime's default buckets then.
        }
        return builder.build();
    }

    /**
     * As the application starts: the timeout and lost-lock counters at zero for every mode, so that a
     * dashboard and an alert on their increase have a series before the first one; a gauge of the
     * time left per Snowflake layout; the refused-range counter of each segment generator at zero.
     */
    void registerAtStart(@Observes @Initialized(ApplicationScoped.class) Object started, IdGenerators generators) {
        Instruments in = instruments.get();
        if (in == null) {
            return;
        }
        for (LockMode mode : LockMode.values()) {
            Attributes ofMode = Attributes.of(MODE, mode.name().toLowerCase(Locale.ROOT));
            in.timeouts().add(0, ofMode);
            in.lost().add(0, ofMode);
        }
        List<IdGenerators.LayoutLife> layouts = generators.snowflakeLayouts();
        if (!layouts.isEmpty()) {
            in.meter().gaugeBuilder("distlock.id.layout.remaining").setUnit("s")
                    .setDescription("Time left until a Snowflake id layout runs out of time bits")
                    .buildWithCallback(gauge -> layouts.forEach(life -> gauge.record(
                            Duration.between(Instant.now(), life.end()).toSeconds(), Attributes.of(GENERATOR, life.generator()))));
        }
        for (String generator : generators.segmentGenerators()) {
            in.refused().add(0, Attributes.of(GENERATOR, generator));
        }
    }

    /** Told by the generator's own thread, as it refuses the range. */
    void rangeRefused(@Observes RangeRefused refused) {
        Instruments in = instruments.get();
        if (in != null) {
            in.refused().add(1, Attributes.of(GENERATOR, refused.generator()));
        }
    }

    @Override
    public void acquired(String key, String site, LockMode mode, long waitNanos) {
        Instruments in = instruments.get();
        if (in != null) {
            in.waits().record(waitNanos / NANOS_PER_SECOND, in.of(mode, site));
        }
    }

    @Override
    public void released(String key, String site, LockMode mode, long heldNanos) {
        Instruments in = instruments.get();
        if (in != null) {
            in.holds().record(heldNanos / NANOS_PER_SECOND, in.of(mode, site));
        }
    }

    @Override
    public void timedOut(String key, String site, LockMode mode, long waitNanos) {
        Instruments in = instruments.get();
        if (in != null) {
            in.timeouts().add(1, in.of(mode, site));
        }
    }

    @Override
    public void lost(String key, String site, LockMode mode) {
        Instruments in = instruments.get();
        if (in != null) {
            in.lost().add(1, in.of(mode, site));
        }
    }
}
