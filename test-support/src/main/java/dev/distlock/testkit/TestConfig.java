package dev.distlock.testkit;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;

import java.util.Map;

/**
 * MicroProfile Config for one test: the given properties, highest priority, registered for the
 * current class loader until closed. Weld must start after this and stop before it closes.
 */
public final class TestConfig implements AutoCloseable {

    private final ClassLoader loader = Thread.currentThread().getContextClassLoader();

    private TestConfig(Map<String, String> properties) {
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        release(resolver);
        Config config = new SmallRyeConfigBuilder()
                .addDefaultSources()
                .withSources(new PropertiesConfigSource(properties, "test", 1_000))
                .build();
        resolver.registerConfig(config, loader);
    }

    public static TestConfig with(Map<String, String> properties) {
        return new TestConfig(properties);
    }

    @Override
    public void close() {
        release(ConfigProviderResolver.instance());
    }

    private void release(ConfigProviderResolver resolver) {
        try {
            resolver.releaseConfig(resolver.getConfig(loader));
        } catch (RuntimeException none) {
            // nothing registered
        }
    }
}
