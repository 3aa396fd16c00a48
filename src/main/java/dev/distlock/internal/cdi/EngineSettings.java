package dev.distlock.internal.cdi;

import dev.distlock.DistributedLocks;
import dev.distlock.EngineFactory;
import dev.distlock.LeaseProof;
import dev.distlock.LocalHandoff;
import dev.distlock.LockDefinitionException;
import dev.distlock.spi.Durations;
import dev.distlock.spi.NodeName;
import org.eclipse.microprofile.config.Config;

import java.time.Duration;
import java.util.Locale;

/**
 * The engine's settings from MicroProfile Config ({@code distlock.key-prefix},
 * {@code distlock.answer-grace}, {@code distlock.handoff.*}, {@code distlock.transaction.*}, where the
 * locks live, with its settings), read and checked once, at deployment. A wrong value becomes a
 * problem that names the key and the value; the defaults stay in place.
 */
final class EngineSettings {

    static final String KEY_PREFIX = "distlock.key-prefix";
    static final String ANSWER_GRACE = "distlock.answer-grace";
    static final String HANDOFF_MAX = "distlock.handoff.max-count";
    static final String HANDOFF_TIME = "distlock.handoff.max-time";
    static final String VERIFY_BEFORE_COMMIT = "distlock.transaction.verify-before-commit";
    static final String LEASE_PROOF = "distlock.transaction.lease-proof";
    static final String TRACING = "distlock.tracing.enabled";

    /** What the application set, checked; the defaults where it set nothing or something wrong. */
    private volatile EngineFactory.Settings locks = EngineFactory.Settings.DEFAULTS;
    private volatile boolean tracing = true;
    /** Read at deployment, which fails if it cannot be. */
    private volatile BackendSettings backend;

    void read(Config config, Problems problems) {
        problems.collect(() -> locks = locks.withKeyPrefix(readKeyPrefix(config)));
        problems.collect(() -> locks = locks.withNodeName(readNodeName(config)));
        problems.collect(() -> locks = locks.withAnswerGrace(config.getOptionalValue(ANSWER_GRACE, String.class)
                .map(value -> Duration.ofMillis(positiveMillis(ANSWER_GRACE, value)))
                .orElse(DistributedLocks.DEFAULT_ANSWER_GRACE)));
        problems.collect(() -> locks = locks.withVerifyBeforeCommit(flag(config, VERIFY_BEFORE_COMMIT, true)));
        problems.collect(() -> tracing = flag(config, TRACING, true));
        problems.collect(() -> locks = locks.withLeaseProof(config.getOptionalValue(LEASE_PROOF, String.class)
                .map(EngineSettings::leaseProof).orElse(LeaseProof.FENCED)));
        problems.collect(() -> locks = locks.withLocalHandoff(readHandoff(config)));
        problems.collect(() -> backend = BackendSettings.read(config, locks.answerGrace()));
    }

    /** The engine's settings as the application configured them (its listeners are the engine's to add). */
    EngineFactory.Settings locks() {
        return locks;
    }

    String keyPrefix() {
        return locks.keyPrefix();
    }

    /** Whether locked calls are spans where OpenTelemetry traces ({@code distlock.tracing.enabled}). */
    boolean tracing() {
        return tracing;
    }

    private static boolean flag(Config config, String key, boolean otherwise) {
        return config.getOptionalValue(key, String.class).map(value -> {
            String text = value.strip().toLowerCase(Locale.ROOT);
            if (!text.equals("true") && !text.equals("false")) {
                throw new LockDefinitionException("Config " + key + "=" + value + ": must be true or false");
            }
            return Boolean.parseBoolean(text);
        }).orElse(otherwise);
    }

    /** Where the locks live: {@code distlock.backend} and its settings. */
    BackendSettings backend() {
        return backend;
    }

    private static String readNodeName(Config config) {
        String name = config.getOptionalValue(NodeName.KEY, String.class).map(String::strip).orElse(null);
        try {
            return name == null ? null : NodeName.check(name);
        } catch (IllegalArgumentException e) {
            throw new LockDefinitionException("Config " + NodeName.KEY + "=" + name + ": " + e.getMessage()
                    + "; leave it unset for the host's name");
        }
    }

    private static String readKeyPrefix(Config config) {
        String prefix = config.getOptionalValue(KEY_PREFIX, String.class).orElse(DistributedLocks.DEFAULT_KEY_PREFIX).strip();
        if (prefix.isEmpty() || prefix.contains("{") || prefix.contains("}")) {
            throw new LockDefinitionException("Config " + KEY_PREFIX + "=" + prefix + ": must not be blank nor contain '{' or '}'");
        }
        return prefix;
    }

    private static LeaseProof leaseProof(String value) {
        String text = value.strip().toUpperCase(Locale.ROOT);
        for (LeaseProof proof : LeaseProof.values()) {
            if (proof.name().equals(text)) {
                return proof;
            }
        }
        throw new LockDefinitionException("Config " + LEASE_PROOF + "=" + value + ": must be none, fenced or all");
    }

    private static LocalHandoff readHandoff(Config config) {
        int maxCount = config.getOptionalValue(HANDOFF_MAX, String.class).map(value -> {
            try {
                int count = Integer.parseInt(value.strip());
                if (count < 0) {
                    throw new NumberFormatException();
                }
                return count;
            } catch (NumberFormatException e) {
                throw new LockDefinitionException("Config " + HANDOFF_MAX + "=" + value
                        + ": must be a whole number >= 0 (0 turns local handoff off)");
            }
        }).orElse(LocalHandoff.DEFAULT.maxHandoffs());
        Duration maxTime = config.getOptionalValue(HANDOFF_TIME, String.class)
                .map(value -> Duration.ofMillis(positiveMillis(HANDOFF_TIME, value)))
                .orElse(LocalHandoff.DEFAULT.maxTime());
        return new LocalHandoff(maxCount, maxTime);
    }

    private static long positiveMillis(String key, String value) {
        return millis(key, value, 1, "must be positive");
    }

    private static long millis(String key, String value, long least, String rule) {
        long millis;
        try {
            millis = Durations.parseMillis(value);
        } catch (IllegalArgumentException e) {
            throw new LockDefinitionException("Config " + key + "=" + value + ": " + e.getMessage());
        }
        if (millis < least) {
            throw new LockDefinitionException("Config " + key + "=" + value + ": " + rule);
        }
        return millis;
    }
}
