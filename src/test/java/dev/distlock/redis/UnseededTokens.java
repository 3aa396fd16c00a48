package dev.distlock.redis;

import dev.distlock.DistributedLocks;
import dev.distlock.internal.core.EngineBuilder;
import org.redisson.api.RedissonClient;

import java.time.Duration;

/**
 * distlock over Redis with the seeding of fencing tokens switched off, for the twins of the
 * fencing tests in other packages: the switch is package-private, never a setting.
 */
public final class UnseededTokens {

    private UnseededTokens() {
    }

    /** Locks that go through distlock's own path, {@link RedisBackend} and its fenced lock, but leave counters unseeded. */
    public static DistributedLocks locks(RedissonClient client, String keyPrefix, Duration answerGrace) {
        return new EngineBuilder().keyPrefix(keyPrefix).answerGrace(answerGrace)
                .build(RedisBackend.withoutSeeding(() -> client, answerGrace.toMillis(),
                        RedisBackend.DEFAULT_FENCING_COUNTER_EXPIRY.toMillis()));
    }
}
