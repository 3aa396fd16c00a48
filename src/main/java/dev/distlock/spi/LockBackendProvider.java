package dev.distlock.spi;

import dev.distlock.LockDefinitionException;

import java.time.Duration;
import java.util.Optional;

/**
 * How the CDI integration finds a {@link LockBackend} that {@code distlock.backend} names: each
 * backend lists one provider in
 * {@code META-INF/services/dev.distlock.spi.LockBackendProvider}, and the application adds the
 * artifact of the backend it chose. Redis, the default, is found the same way; its provider is in
 * distlock itself.
 *
 * <p>Settings are read and checked at deployment ({@link #configure}), so a wrong value fails the
 * deployment; the backend is started as the application starts ({@link Configured#start}).
 */
public interface LockBackendProvider {

    /** The value of {@code distlock.backend} that selects this backend, in lower case: {@code zookeeper}. */
    String name();

    /**
     * Reads and checks this backend's settings; connects to nothing.
     *
     * @throws LockDefinitionException naming the key and what is wrong with its value
     */
    Configured configure(Settings settings);

    /** What the application gives a backend. */
    interface Settings {

        /** The configured value of {@code key} (MicroProfile Config), stripped; empty when unset or blank. */
        Optional<String> value(String key);

        /** The configured value of {@code key} exactly as written, for secrets whose spaces count; empty when unset. */
        default Optional<String> raw(String key) {
            return value(key);
        }

        /**
         * The configured duration {@code key}, ISO-8601 ({@code PT15S}) or milliseconds, or
         * {@code fallback} when unset.
         *
         * @throws LockDefinitionException naming the key when the value is not a positive duration
         */
        Duration duration(String key, Duration fallback);

        /** How much longer than a call's wait the backend may take to answer ({@code distlock.answer-grace}). */
        Duration answerGrace();
    }

    /** A backend whose settings were found valid, ready to start. */
    interface Configured {

        /** For logs and readiness checks: where the locks live, e.g. {@code ZooKeeper (zk1:2181/distlock)}. */
        String describe();

        /** Makes the backend as the application starts; the engine that uses it closes it. May connect lazily. */
        LockBackend start(Beans beans);
    }

    /** The running application's beans. */
    interface Beans {

        /**
         * The application's one bean of {@code type}, e.g. its {@code DataSource}; empty when it has
         * none or several. May be asked later too, e.g. by the first locked call.
         */
        <T> Optional<T> bean(Class<T> type);
    }
}
