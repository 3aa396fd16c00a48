package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.spi.Durations;
import dev.distlock.spi.LockBackendProvider;
import org.eclipse.microprofile.config.Config;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Where the locks live: {@code distlock.backend}, the name of a {@link LockBackendProvider} on the
 * class path: {@code redis} (the default, in distlock itself), or one a backend artifact lists. The
 * provider reads and checks its own settings here, at deployment. Redis is configured whatever the
 * backend: id generators keep their worker ids and serials there when the lock backend does not.
 *
 * @param name       the backend, as configured, in lower case
 * @param configured the provider's backend, ready to start
 * @param redis      Redis, ready to start for the ids where the locks are elsewhere ({@code configured} itself where they are in Redis)
 */
record BackendSettings(String name, LockBackendProvider.Configured configured, LockBackendProvider.Configured redis) {

    static final String BACKEND = "distlock.backend";
    static final String DEFAULT = "redis";
    /** The backends distlock publishes, for the message when one is chosen but absent. */
    private static final Map<String, String> KNOWN_ARTIFACTS = Map.of(
            "zookeeper", "dev.distlock:distlock-zookeeper", "jdbc", "dev.distlock:distlock-jdbc");

    /** @throws LockDefinitionException naming the key and the value that is wrong, or the artifact that is missing */
    static BackendSettings read(Config config, Duration answerGrace) {
        String value = config.getOptionalValue(BACKEND, String.class).map(String::strip).orElse(DEFAULT);
        String name = value.toLowerCase(Locale.ROOT);
        MicroProfileSettings settings = new MicroProfileSettings(config, answerGrace);
        LockBackendProvider.Configured redis = provider(DEFAULT).orElseThrow(() -> new LockDefinitionException(
                "distlock's Redis provider is missing from META-INF/services/dev.distlock.spi.LockBackendProvider"))
                .configure(settings);
        if (name.equals(DEFAULT)) {
            return new BackendSettings(name, redis, redis);
        }
        LockBackendProvider provider = provider(name).orElseThrow(() -> new LockDefinitionException(
                KNOWN_ARTIFACTS.containsKey(name)
                        ? "Config " + BACKEND + "=" + value + " needs the " + KNOWN_ARTIFACTS.get(name) + " artifact (same version"
                                + " as distlock) in the application; it is not on its class path"
                        : "Config " + BACKEND + "=" + value + ": must be redis, zookeeper, jdbc or in-memory (tests), or the name of a "
                                + "dev.distlock.spi.LockBackendProvider on the class path"));
        return new BackendSettings(name, provider.configure(settings), redis);
    }

    private static Optional<LockBackendProvider> provider(String name) {
        ClassLoader[] loaders = {Thread.currentThread().getContextClassLoader(), BackendSettings.class.getClassLoader()};
        for (ClassLoader loader : loaders) {
            if (loader == null) {
                continue;
            }
            for (LockBackendProvider provider : ServiceLoader.load(LockBackendProvider.class, loader)) {
                if (provider.name().equalsIgnoreCase(name)) {
                    return Optional.of(provider);
                }
            }
        }
        return Optional.empty();
    }

    /** For logs and readiness: where the locks are. */
    String describe() {
        return configured.describe();
    }

    /** A backend's view of the application's MicroProfile Config. */
    private record MicroProfileSettings(Config config, Duration answerGrace) implements LockBackendProvider.Settings {

        @Override
        public Optional<String> value(String key) {
            return config.getOptionalValue(key, String.class).map(String::strip).filter(text -> !text.isEmpty());
        }

        @Override
        public Optional<String> raw(String key) {
            return config.getOptionalValue(key, String.class);
        }

        @Override
        public Duration duration(String key, Duration fallback) {
            Optional<String> value = config.getOptionalValue(key, String.class);
            if (value.isEmpty()) {
                return fallback;
            }
            long millis;
            try {
                millis = Durations.parseMillis(value.get());
            } catch (IllegalArgumentException e) {
                throw new LockDefinitionException("Config " + key + "=" + value.get() + ": " + e.getMessage());
            }
            if (millis <= 0 || millis > Integer.MAX_VALUE) {
                throw new LockDefinitionException("Config " + key + "=" + value.get() + ": must be a positive duration, "
                        + "e.g. PT15S or 15000");
            }
            return Duration.ofMillis(millis);
        }
    }
}
