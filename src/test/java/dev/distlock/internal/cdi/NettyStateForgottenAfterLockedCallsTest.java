package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.TestRedis;
import io.netty.util.concurrent.FastThreadLocal;
import jakarta.enterprise.context.ApplicationScoped;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netty keeps state on the threads that talk to Redis through it; on a server's pooled thread that
 * state would keep an undeployed application alive. With Redis as the backend, a locked call leaves
 * none behind on the caller's thread (the backend's {@code releaseThreadState}); with another backend
 * distlock leaves netty alone, since it does not use it. The second test is the twin: it shows that
 * the state planted here does stay when nothing forgets it.
 */
class NettyStateForgottenAfterLockedCallsTest {

    /** Stands for what netty keeps per thread: set by the locked work, on the caller's thread. */
    static final FastThreadLocal<String> PLANTED = new FastThreadLocal<>();

    @ApplicationScoped
    public static class Planter {
        @Locked("netty-state")
        public boolean plant() {
            PLANTED.set("left by the application's call");
            return PLANTED.isSet();
        }
    }

    @AfterEach
    void forget() {
        FastThreadLocal.removeAll();
    }

    @Test
    void withRedisALockedCallLeavesNoNettyStateOnItsThread() {
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", TestRedis.uniquePrefix("netty")),
                TestRedisClient.class, Planter.class)) {
            assertTrue(weld.bean(Planter.class).plant(), "the work set the state");
            assertFalse(PLANTED.isSet(), "netty's state is still on the caller's thread after the locked call");
        }
    }

    @Test
    void twinWithAnotherBackendTheStateStays() {
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.backend", "in-memory"), Planter.class)) {
            assertTrue(weld.bean(Planter.class).plant());
            assertEquals("left by the application's call", PLANTED.get(), "a backend without netty leaves netty alone");
        }
    }
}
