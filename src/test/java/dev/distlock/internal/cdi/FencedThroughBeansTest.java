package dev.distlock.internal.cdi;

import dev.distlock.LockContext;
import dev.distlock.Locked;
import dev.distlock.redis.FencingTokens;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code @Locked(fenced = true)} and the injected {@link LockContext}, through Weld. */
class FencedThroughBeansTest {

    /** Reads the fencing token of the lock it holds, from a fenced method and from a plain one. */
    @ApplicationScoped
    public static class TokenReader {
        @Inject
        LockContext lock;

        @Locked(value = "stock:{sku}", fenced = true)
        public long token(String sku) {
            return lock.fencingToken().orElseThrow();
        }

        @Locked("stock:{sku}")
        public OptionalLong plain(String sku) {
            return lock.fencingToken();
        }
    }

    @Test
    void fencedMethodSeesARisingTokenAndAPlainOneNone() {
        String prefix = TestRedis.uniquePrefix("fenced-cdi");
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", prefix), TestRedisClient.class, TokenReader.class)) {
            TokenReader reader = weld.bean(TokenReader.class);
            long first = reader.token("A-1");
            long second = reader.token("A-1");
            assertTrue(first >= FencingTokens.SEEDED, "token " + first);
            assertTrue(second > first);
            assertEquals(OptionalLong.empty(), reader.plain("A-1"));
            assertEquals(OptionalLong.empty(), weld.bean(LockContext.class).fencingToken(), "outside any locked call");
        }
    }

    @Test
    void fencingCanBeSwitchedOnInConfig() {
        String prefix = TestRedis.uniquePrefix("fenced-cdi");
        Map<String, String> config = Map.of("distlock.key-prefix", prefix,
                TokenReader.class.getName() + "/plain/Locked/fenced", "true");
        try (DistlockWeld weld = DistlockWeld.start(config, TestRedisClient.class, TokenReader.class)) {
            assertTrue(weld.bean(TokenReader.class).plain("A-2").isPresent());
        }
    }
}
