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
 * Where the locks live: {@code distlock.backend}, {@code redis} (the default, part of distlock) or
 * the name of a {@link LockBackendProvider} that a backend artifact on the class path lists. The
 * provider reads and checks its own settings here, at deployment.
 *
 * @param name       the backend, as configured, in lower case
 * @param configured the provider's backend, ready to start; {@code null} for Redis
 */
record BackendSettings(String name, LockBackendProvider.Configured configured) {

    static final String BACKEND = "distlock.backend";
    static final BackendSettings REDIS = new BackendSettings("redis", null);
    /** The backends distlock publishes, for the message when one is chosen but absent. */
    private static final Map<String, String> KNOWN_ARTIFACTS = Map.of(
            "zookeeper", "dev.distlock:distlock-zookeeper", "jdbc", "dev.distlock:distlock-jdbc");

    /** @throws LockDefinitionException naming the key and the value that is wrong, or the artifact that is missing */
    static BackendSettings read(Config config, Duration answerGrace) {
        String value = config.getOptionalValue(BACKEND, String.class).map(String::strip).orElse("redis");
        String name = value.toLowerCase(Locale.ROOT);
        if (name.equals("redis")) {
            return REDIS;
        }
        LockBackendProvider provider = provider(name).orElseThrow(() -> new LockDefinitionException(
                KNOWN_ARTIFACTS.containsKey(name)
                        ? "Config " + BACKEND + "=" + value + " needs the " + KNOWN_ARTIFACTS.get(name) + " artifact (same version"
                                + " as distlock) in the application; it is not on its class path"
                        : "Config " + BACKEND + "=" + value + ": must be redis, zookeeper, jdbc or in-memory (tests), or the name of a "
                                + "dev.distlock.spi.LockBackendProvider on the class path"));
        return new BackendSettings(name, provider.configure(new MicroProfileSettings(config, answerGrace)));
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

    boolean redis() {
        return configured == null;
    }

    /** For logs and readiness: where the locks are. */
    String describe() {
        return redis() ? "Redis" : configured.describe();
    }

    /** A backend's view of the application's MicroProfile Config. */
    private record MicroProfileSettings(Config config, Duration answerGrace) implements LockBackendProvider.Settings {

        @Override
        public Optional<String> value(String key) {
            return config.getOptionalValue(key, String.class).map(String::strip).filter(text -> !text.isEmpty());
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
