package dev.distlock.internal.cdi.observability;

import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.Map;
import java.util.Set;

/**
 * distlock's defaults for MicroProfile Metrics, at the lowest precedence: the application's own
 * configuration always wins.
 *
 * <p>{@code mp.metrics.distribution.percentiles}: no quantiles for distlock's timers. Payara
 * (6.2025.10) prints timer quantiles in nanoseconds under a {@code _seconds} name, next to a mean,
 * maximum and sum in seconds; without quantiles, every figure of the timers is in seconds, on every
 * server. An application that sets the property itself keeps its own value: it should name
 * {@code distlock.lock.*=} in it, or accept nanosecond quantiles on Payara.
 */
public final class MetricsDefaults implements ConfigSource {

    /** Below every source an application normally has (100 and up). */
    static final int ORDINAL = 10;
    static final String PERCENTILES = "mp.metrics.distribution.percentiles";
    static final String NO_DISTLOCK_QUANTILES = "distlock.lock.*=";

    private static final Map<String, String> PROPERTIES = Map.of(PERCENTILES, NO_DISTLOCK_QUANTILES);

    @Override
    public Map<String, String> getProperties() {
        return PROPERTIES;
    }

    @Override
    public Set<String> getPropertyNames() {
        return PROPERTIES.keySet();
    }

    @Override
    public String getValue(String propertyName) {
        return PROPERTIES.get(propertyName);
    }

    @Override
    public String getName() {
        return "distlock metrics defaults";
    }

    @Override
    public int getOrdinal() {
        return ORDINAL;
    }
}
