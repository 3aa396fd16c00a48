package dev.distlock.security;

import dev.distlock.KeyBounds;
import dev.distlock.LockDefinitionException;
import dev.distlock.LockMode;
import dev.distlock.internal.core.MethodKeys;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two ways distinct user values could share one lock, found by the property tests and fixed since.
 * Sharing a lock is over-locking, not a lost exclusion: the cost was that one caller could make
 * another wait (or time out) on a value that is not its own.
 */
class KeyCollisionsTest {

    static class Keys {
        void pair(String x, String y) {
        }
    }

    /** Two placeholders in one ':'-separated part could run together: such a template fails the deployment. */
    @Test
    void placeholdersNotSeparatedByAColonAreRejected() throws Exception {
        for (String template : List.of("a:{x}-{y}", "{x}{y}", "a:{x}.b.{y}:c")) {
            LockDefinitionException rejected = assertThrows(LockDefinitionException.class, () -> MethodKeys.bind(List.of(template),
                    Keys.class.getDeclaredMethod("pair", String.class, String.class), LockMode.EXCLUSIVE, "Keys.pair"), template);
            assertTrue(rejected.getMessage().contains("are not separated by ':'"), rejected.getMessage());
        }
        MethodKeys keys = MethodKeys.bind(List.of("a:{x}:{y}"), Keys.class.getDeclaredMethod("pair", String.class, String.class),
                LockMode.EXCLUSIVE, "Keys.pair");
        assertNotEquals(keys.render(new Object[]{"p-q", "r"}).get(0), keys.render(new Object[]{"p", "q-r"}).get(0));
    }

    /**
     * Redis sees UTF-8 bytes, and Redisson writes an unpaired surrogate as '?': "k\uD800" (valid in
     * JSON as "k\ud800") and "k?" would lock one key. Unpaired surrogates are escaped (%uD800).
     */
    @Test
    void valuesThatDifferOnlyInAnUnpairedSurrogateDoNotShareALock() {
        String lone = KeyBounds.encode("k\uD800");
        String question = KeyBounds.encode("k?");
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
