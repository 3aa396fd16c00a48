package dev.distlock.internal.cdi.observability;

import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.internal.cdi.IdGenerators;
import dev.distlock.internal.cdi.Memo;
import dev.distlock.internal.id.RangeRefused;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Lock metrics in the application registry, tagged by mode (not by key: keys carry user values
 * and would make the registry grow without bound): {@code distlock.lock.wait} and
 * {@code distlock.lock.hold} timers, {@code distlock.lock.timeouts} and
 * {@code distlock.lock.lost} counters; and per Snowflake id generator the application injects, a
 * {@code distlock.id.layout.remaining} gauge: seconds until its layout runs out of time bits; per
 * segment generator, a {@code distlock.id.segment.refused} counter: ranges refused because the
 * database went back.
 */
@ApplicationScoped
public class LockMetrics implements LockListener {

    /** The unit is explicit: a server that assumes none reports nanoseconds as seconds. */
    private static final Metadata WAIT = Metadata.builder().withName("distlock.lock.wait")
            .withDescription("Time spent waiting for a distributed lock").withUnit(MetricUnits.NANOSECONDS).build();
    private static final Metadata HOLD = Metadata.builder().withName("distlock.lock.hold")
            .withDescription("Time a distributed lock was held").withUnit(MetricUnits.NANOSECONDS).build();

    private static final Metadata TIMEOUTS = Metadata.builder().withName("distlock.lock.timeouts")
            .withDescription("Locked calls that gave up waiting for their lock").build();
    private static final Metadata LOST = Metadata.builder().withName("distlock.lock.lost")
            .withDescription("Locks found lost while held (the holder was told with LockLostException)").build();

    private static final Metadata LAYOUT = Metadata.builder().withName("distlock.id.layout.remaining")
            .withDescription("Time left until a Snowflake id layout runs out of time bits").withUnit(MetricUnits.SECONDS).build();

    private static final Metadata REFUSED = Metadata.builder().withName("distlock.id.segment.refused")
            .withDescription("Segment id ranges refused because the database handed out ids the generator already had").build();

    private final Supplier<MetricRegistry> registry;

    /** The API may be present without an implementation (plain Weld): then nothing is recorded. */
    @Inject
    LockMetrics(Instance<MetricRegistry> registries) {
        this.registry = new Memo<>(() -> registries.isResolvable() ? registries.get() : null);
    }

    /** For proxies only. */
    protected LockMetrics() {
        this.registry = null;
    }

    /**
     * Registered as the application starts: the timeout and lost-lock counters of every mode at
     * zero, so that a dashboard shows them before the first one and an alert on their increase sees
     * it; one gauge per Snowflake generator and one counter per segment generator.
     */
    void registerAtStart(@Observes @Initialized(ApplicationScoped.class) Object started, IdGenerators generators) {
        MetricRegistry metrics = registry.get();
        if (metrics == null) {
            return;
        }
        for (LockMode mode : LockMode.values()) {
            metrics.counter(TIMEOUTS, tag(mode));
            metrics.counter(LOST, tag(mode));
        }
        for (IdGenerators.LayoutLife life : generators.snowflakeLayouts()) {
            metrics.gauge(LAYOUT, life.end(), end -> Duration.between(Instant.now(), end).toSeconds(),
                    new Tag("generator", life.generator()));
        }
        // At zero from the start, so that an alert on its increase sees the first refusal.
        for (String generator : generators.segmentGenerators()) {
            metrics.counter(REFUSED, new Tag("generator", generator));
        }
    }

    /** Told by the generator's own thread, as it refuses the range. */
    void rangeRefused(@Observes RangeRefused refused) {
        MetricRegistry metrics = registry.get();
        if (metrics != null) {
            metrics.counter(REFUSED, new Tag("generator", refused.generator())).inc();
        }
    }

    @Override
    public void acquired(String key, LockMode mode, long waitNanos) {
        MetricRegistry metrics = registry.get();
        if (metrics != null) {
            metrics.timer(WAIT, tag(mode)).update(Duration.ofNanos(waitNanos));
        }
    }

    @Override
    public void released(String key, LockMode mode, long heldNanos) {
        MetricRegistry metrics = registry.get();
        if (metrics != null) {
            metrics.timer(HOLD, tag(mode)).update(Duration.ofNanos(heldNanos));
        }
    }

    @Override
    public void timedOut(String key, LockMode mode, long waitNanos) {
        MetricRegistry metrics = registry.get();
        if (metrics != null) {
            metrics.counter(TIMEOUTS, tag(mode)).inc();
        }
    }

    @Override
    public void lost(String key, LockMode mode) {
        MetricRegistry metrics = registry.get();
        if (metrics != null) {
            metrics.counter(LOST, tag(mode)).inc();
        }
    }

    private static Tag tag(LockMode mode) {
        return new Tag("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
    }
}
