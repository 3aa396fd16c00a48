package dev.distlock.security;

import dev.distlock.core.KeyEncoding;
import dev.distlock.core.LockMode;
import dev.distlock.core.MethodKeys;
import dev.distlock.testing.TestRedis;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Two ways distinct user values still share one lock, found by the property tests. Each test
 * states the property the library should have and fails today, hence disabled; run them with
 * {@code -Djunit.jupiter.conditions.deactivate=org.junit.*DisabledCondition} to see them fail.
 * Sharing a lock is over-locking, not a lost exclusion: the cost is that one caller can make
 * another wait (or time out) on a value that is not its own.
 */
class KnownKeyCollisionsTest {

    static class Keys {
        void pair(String x, String y) {
        }
    }

    @Test
    @Disabled("known issue: a template whose placeholders are separated by anything but ':' ({x}-{y}, {x}{y}) "
            + "is not injective: only ':' is escaped in values. Fix: reject such templates at deployment, or escape the separator used")
    void placeholdersSeparatedByADashDoNotCollide() throws Exception {
        MethodKeys keys = MethodKeys.bind(List.of("a:{x}-{y}"), Keys.class.getDeclaredMethod("pair", String.class, String.class),
                LockMode.EXCLUSIVE, "Keys.pair");
        String first = keys.render(new Object[]{"p-q", "r"}).get(0);
        String second = keys.render(new Object[]{"p", "q-r"}).get(0);
        assertNotEquals(first, second, "(p-q, r) and (p, q-r) lock the same key");
    }

    @Test
    @Disabled("known issue: encode() is injective on Java strings, but Redis sees UTF-8 bytes and Redisson writes an "
            + "unpaired surrogate as '?': \"k\\uD800\" (valid in JSON as \"k\\ud800\") and \"k?\" lock one key. "
            + "Fix: escape unpaired surrogates in KeyEncoding (e.g. %uD800, which no current escape starts with)")
    void valuesThatDifferOnlyInAnUnpairedSurrogateDoNotShareALock() {
        String lone = KeyEncoding.encode("k\uD800");
        String question = KeyEncoding.encode("k?");
        RedissonClient redis = TestRedis.sharedClient();
        String prefix = TestRedis.uniquePrefix("surrogate") + ":lock:order:";
        RLock held = redis.getLock(prefix + lone);
        held.lock(30, TimeUnit.SECONDS);
        try {
            assertFalse(redis.getLock(prefix + question).isLocked(), "the lock of 'k?' is held by the caller of 'k\\uD800'");
        } finally {
            held.unlock();
        }
        // Why: Java's and Netty's UTF-8 encoders both write '?' for an unpaired surrogate.
        assertFalse(Arrays.equals(lone.getBytes(StandardCharsets.UTF_8), question.getBytes(StandardCharsets.UTF_8)),
                "k\\uD800 and k? are the same bytes");
    }
}
