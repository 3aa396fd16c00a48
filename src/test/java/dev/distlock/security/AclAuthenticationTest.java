package dev.distlock.security;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.Locked;
import dev.distlock.internal.cdi.observability.LockStoreReadiness;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.SecuredRedis;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Redis that lets in only an ACL user with a password (the {@code default} user is off),
 * configured through MicroProfile Config: locks work with the right credentials; with a wrong or
 * no password the call fails at once with {@link LockServiceUnavailableException} and readiness is
 * DOWN, both saying that authentication failed and which settings to check, neither showing a
 * password.
 */
class AclAuthenticationTest {

    private static final String USER = "app";
    private static final String PASSWORD = "s3cret-pw-" + UUID.randomUUID();

    private static SecuredRedis redis;
    private static RedissonClient admin;

    @ApplicationScoped
    public static class Ledger {
        @Locked("ledger:{account}")
        public <T> T post(String account, Callable<T> body) throws Exception {
            return body.call();
        }
    }

    @BeforeAll
    static void startRedis() {
        redis = SecuredRedis.start(USER, PASSWORD);
        admin = redis.adminClient();
    }

    @AfterAll
    static void stopRedis() {
        try {
            if (admin != null) {
                admin.shutdown();
            }
        } finally {
            redis.close();
        }
    }

    @Test
    void locksWorkForTheAclUserWithItsPassword() throws Exception {
        String prefix = TestRedis.uniquePrefix("acl");
        try (DistlockWeld weld = DistlockWeld.start(settings(prefix, redis.address(), PASSWORD), Ledger.class)) {
            String key = prefix + ":lock:ledger:acc-1";
            assertTrue(weld.bean(Ledger.class).post("acc-1", () -> admin.getLock(key).isLocked()),
                    "held in the secured Redis while the method runs");
            assertFalse(admin.getLock(key).isLocked(), "released");
            assertEquals(HealthCheckResponse.Status.UP, readiness(weld).getStatus());
        }
    }

    @Test
    void theServerRefusesClientsWithoutCredentials() {
        // The twin of the test above: what made the locks work was the password, not an open server.
        RedisConnectionException refused = assertThrows(RedisConnectionException.class,
                () -> TestRedis.newClient(config -> config.useSingleServer().setAddress(redis.address())).shutdown());
        assertTrue(Leaks.printed(refused).contains("NOAUTH"), Leaks.printed(refused));
    }

    @Test
    void wrongPasswordFailsNamingAuthenticationButNoPassword() throws Exception {
        String wrong = "wrong-pw-" + UUID.randomUUID();
        try (DistlockWeld weld = DistlockWeld.start(settings(TestRedis.uniquePrefix("acl-wrong"), redis.address(), wrong), Ledger.class)) {
            LockServiceUnavailableException failure = assertThrows(LockServiceUnavailableException.class,
                    () -> weld.bean(Ledger.class).post("acc-1", () -> "ran"));
            String message = failure.getMessage();
            assertTrue(message.contains("authentication failed") && message.contains("distlock.redis.password")
                    && message.contains("127.0.0.1:" + redis.port()), message);
            assertNoPassword(Leaks.printed(failure), "the exception and its causes", wrong);

            HealthCheckResponse down = readiness(weld);
            assertEquals(HealthCheckResponse.Status.DOWN, down.getStatus());
            String error = down.getData().orElseThrow().get("error").toString();
            assertTrue(error.contains("authentication failed"), error);
            assertNoPassword(down.getData().toString(), "the readiness data", wrong);
        }
    }

    @Test
    void noPasswordAtAllSaysAuthenticationIsRequired() {
        Map<String, String> properties = Map.of("distlock.key-prefix", TestRedis.uniquePrefix("acl-none"),
                "distlock.redis.address", redis.address());
        try (DistlockWeld weld = DistlockWeld.start(properties, Ledger.class)) {
            LockServiceUnavailableException failure = assertThrows(LockServiceUnavailableException.class,
                    () -> weld.bean(Ledger.class).post("acc-1", () -> "ran"));
            assertTrue(failure.getMessage().contains("requires authentication (NOAUTH)")
                    && failure.getMessage().contains("Set distlock.redis.password"), failure.getMessage());
            assertNoPassword(Leaks.printed(failure), "the exception and its causes", PASSWORD);
        }
    }

    @Test
    void credentialsInTheAddressWorkAndAreNotShown() throws Exception {
        String prefix = TestRedis.uniquePrefix("acl-url");
        String address = "redis://" + USER + ":" + PASSWORD + "@127.0.0.1:" + redis.port();
        Map<String, String> properties = Map.of("distlock.key-prefix", prefix, "distlock.redis.address", address);
        try (DistlockWeld weld = DistlockWeld.start(properties, Ledger.class)) {
            assertTrue(weld.bean(Ledger.class).post("acc-2", () -> admin.getLock(prefix + ":lock:ledger:acc-2").isLocked()));
            assertEquals(HealthCheckResponse.Status.UP, readiness(weld).getStatus());
        }
    }

    private static HealthCheckResponse readiness(DistlockWeld weld) {
        return weld.container().select(LockStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
    }

    private static Map<String, String> settings(String prefix, String address, String password) {
        Map<String, String> properties = new HashMap<>();
        properties.put("distlock.key-prefix", prefix);
        properties.put("distlock.redis.address", address);
        properties.put("distlock.redis.username", USER);
        properties.put("distlock.redis.password", password);
        return properties;
    }

    private static void assertNoPassword(String text, String where, String tried) {
        Leaks.assertNotIn(text, tried, where);
        Leaks.assertNotIn(text, PASSWORD, where);
    }
}
