package dev.distlock.internal.cdi.observability;

import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.internal.cdi.IdGenerators;
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

/**
 * Lock metrics in the application registry, tagged by mode (not by key: keys carry user values
 * and would make the registry grow without bound): {@code distlock.lock.wait} and
 * {@code distlock.lock.hold} timers, {@code distlock.lock.timeouts} and
 * {@code distlock.lock.lost} counters; and per Snowflake id generator the application injects, a
 * {@code distlock.id.layout.remaining} gauge: seconds until its layout runs out of time bits.
 */
@ApplicationScoped
public class LockMetrics implements LockListener {

    /** The unit is explicit: a server that assumes none reports nanoseconds as seconds. */
    private static final Metadata WAIT = Metadata.builder().withName("distlock.lock.wait")
            .withDescription("Time spent waiting for a distributed lock").withUnit(MetricUnits.NANOSECONDS).build();
    private static final Metadata HOLD = Metadata.builder().withName("distlock.lock.hold")
            .withDescription("Time a distributed lock was held").withUnit(MetricUnits.NANOSECONDS).build();

    private static final Metadata LAYOUT = Metadata.builder().withName("distlock.id.layout.remaining")
            .withDescription("Time left until a Snowflake id layout runs out of time bits").withUnit(MetricUnits.SECONDS).build();

    private final Instance<MetricRegistry> registries;
    private volatile MetricRegistry registry;
    private volatile boolean looked;

    /** The API may be present without an implementation (plain Weld): then nothing is recorded. */
    @Inject
    LockMetrics(Instance<MetricRegistry> registries) {
        this.registries = registries;
    }

    /** For proxies only. */
    protected LockMetrics() {
        this.registries = null;
    }

    private boolean ready() {
        if (!looked) {
            registry = registries.isResolvable() ? registries.get() : null;
            looked = true;
        }
        return registry != null;
    }

    /** One gauge per Snowflake generator, registered as the application starts. */
    void layoutGauges(@Observes @Initialized(ApplicationScoped.class) Object started, IdGenerators generators) {
        if (!ready()) {
            return;
        }
        for (IdGenerators.LayoutLife life : generators.snowflakeLayouts()) {
            registry.gauge(LAYOUT, life.end(), end -> Duration.between(Instant.now(), end).toSeconds(),
                    new Tag("generator", life.generator()));
        }
    }

    @Override
    public void acquired(String key, LockMode mode, long waitNanos) {
        if (ready()) {
            registry.timer(WAIT, tag(mode)).update(Duration.ofNanos(waitNanos));
        }
    }

    @Override
    public void released(String key, LockMode mode, long heldNanos) {
        if (ready()) {
            registry.timer(HOLD, tag(mode)).update(Duration.ofNanos(heldNanos));
        }
    }

    @Override
    public void timedOut(String key, LockMode mode, long waitNanos) {
        if (ready()) {
            registry.counter("distlock.lock.timeouts", tag(mode)).inc();
        }
    }

    @Override
    public void lost(String key, LockMode mode) {
        if (ready()) {
            registry.counter("distlock.lock.lost", tag(mode)).inc();
        }
    }

    private static Tag tag(LockMode mode) {
        return new Tag("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
    }
}
