package dev.distlock.security;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.Locked;
import dev.distlock.internal.cdi.observability.LockStoreReadiness;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.SecuredRedis;
import dev.distlock.testing.TlsMaterial;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.api.RedissonClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Locks through {@code rediss://}: the embedded redis-server speaks TLS itself (it is linked with
 * OpenSSL) on a second port, with a self-signed certificate made by keytool at test time, and lets
 * in only an ACL user. distlock trusts it through {@code distlock.redis.ssl-truststore}; without
 * that the handshake fails and the error says the certificate is not trusted.
 */
class TlsRedisTest {

    private static final String USER = "app";
    private static final String PASSWORD = "tls-pw-" + UUID.randomUUID();

    @TempDir
    static Path keys;

    private static TlsMaterial tls;
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
        tls = TlsMaterial.selfSigned(keys, "IP:127.0.0.1,DNS:localhost");
        redis = SecuredRedis.start(USER, PASSWORD, tls);
        admin = redis.adminClient();
    }

    @AfterAll
    static void stopRedis() {
        try {
            if (admin != null) {
                admin.shutdown();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    @Test
    void locksThroughRedissWithTheTruststore() throws Exception {
        String prefix = TestRedis.uniquePrefix("tls");
        Map<String, String> properties = settings(prefix, "rediss://127.0.0.1:" + redis.tlsPort());
        properties.put("distlock.redis.ssl-truststore", tls.trustStore().toString());
        properties.put("distlock.redis.ssl-truststore-password", tls.trustStorePassword());
        try (DistlockWeld weld = DistlockWeld.start(properties, Ledger.class)) {
            String key = prefix + ":lock:ledger:acc-1";
            assertTrue(weld.bean(Ledger.class).post("acc-1", () -> admin.getLock(key).isLocked()),
                    "held, as seen through the plain port");
            assertFalse(admin.getLock(key).isLocked());
            assertEquals(HealthCheckResponse.Status.UP, readiness(weld).getStatus());
        }
    }

    @Test
    void withoutTheTruststoreTheHandshakeFailsAndSaysWhy() {
        // The twin: the same server and credentials, no trust store: the JVM's default trust store
        // does not know a self-signed certificate, so nothing goes through unverified.
        Map<String, String> properties = settings(TestRedis.uniquePrefix("tls-untrusted"), "rediss://127.0.0.1:" + redis.tlsPort());
        try (DistlockWeld weld = DistlockWeld.start(properties, Ledger.class)) {
            LockServiceUnavailableException failure = assertThrows(LockServiceUnavailableException.class,
                    () -> weld.bean(Ledger.class).post("acc-1", () -> "ran"));
            String message = failure.getMessage();
            assertTrue(message.contains("TLS handshake failed") && message.contains("not trusted")
                    && message.contains("distlock.redis.ssl-truststore") && message.contains("rediss://127.0.0.1:" + redis.tlsPort()),
                    message);
            Leaks.assertNotIn(Leaks.printed(failure), PASSWORD, "the exception");
            HealthCheckResponse down = readiness(weld);
            assertEquals(HealthCheckResponse.Status.DOWN, down.getStatus());
            assertTrue(down.getData().orElseThrow().get("error").toString().contains("not trusted"), down.getData().toString());
        }
    }

    @Test
    void rediss_toThePlainPortSaysTheServerDoesNotSpeakTls() {
        Map<String, String> properties = settings(TestRedis.uniquePrefix("tls-plain-port"), "rediss://127.0.0.1:" + redis.port());
        properties.put("distlock.redis.ssl-truststore", tls.trustStore().toString());
        properties.put("distlock.redis.ssl-truststore-password", tls.trustStorePassword());
        properties.put("distlock.redis.connect-timeout", "PT1S");
        try (DistlockWeld weld = DistlockWeld.start(properties, Ledger.class)) {
            long start = System.nanoTime();
            LockServiceUnavailableException failure = assertThrows(LockServiceUnavailableException.class,
                    () -> weld.bean(Ledger.class).post("acc-1", () -> "ran"));
            long millis = (System.nanoTime() - start) / 1_000_000;
            // The handshake is bounded by connect-timeout. Without that bound (Netty's 10 s per
            // attempt, three attempts) this call took 31.2 s, measured on this branch.
            assertTrue(millis < 8_000, "failed after " + millis + " ms");
            assertTrue(failure.getMessage().contains("TLS handshake failed")
                    && failure.getMessage().contains("does it listen for TLS on that port?"), failure.getMessage());
            Leaks.assertNotIn(Leaks.printed(failure), tls.trustStorePassword(), "the exception");
        }
    }

    @Test
    void aCertificateForAnotherHostIsRefusedUnlessVerificationIsCaOnly() throws Exception {
        Path otherKeys = Files.createDirectories(keys.resolve("other-host"));
        TlsMaterial other = TlsMaterial.selfSigned(otherKeys, "DNS:redis.internal");
        try (SecuredRedis otherRedis = SecuredRedis.start(USER, PASSWORD, other)) {
            String address = "rediss://127.0.0.1:" + otherRedis.tlsPort();
            Map<String, String> strict = settings(TestRedis.uniquePrefix("tls-strict"), address);
            strict.put("distlock.redis.ssl-truststore", other.trustStore().toUri().toString()); // a file: URL works too
            strict.put("distlock.redis.ssl-truststore-password", other.trustStorePassword());
            try (DistlockWeld weld = DistlockWeld.start(strict, Ledger.class)) {
                LockServiceUnavailableException failure = assertThrows(LockServiceUnavailableException.class,
                        () -> weld.bean(Ledger.class).post("acc-1", () -> "ran"));
                assertTrue(failure.getMessage().contains("does not name the host")
                        && failure.getMessage().contains("distlock.redis.ssl-verification=ca-only"), failure.getMessage());
            }

            Map<String, String> caOnly = new HashMap<>(strict);
            caOnly.put("distlock.key-prefix", TestRedis.uniquePrefix("tls-ca-only"));
            caOnly.put("distlock.redis.ssl-verification", "ca-only");
            try (DistlockWeld weld = DistlockWeld.start(caOnly, Ledger.class)) {
                assertEquals("ran", weld.bean(Ledger.class).post("acc-1", () -> "ran"));
            }
        }
    }

    private static HealthCheckResponse readiness(DistlockWeld weld) {
        return weld.container().select(LockStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
    }

    private static Map<String, String> settings(String prefix, String address) {
        Map<String, String> properties = new HashMap<>();
        properties.put("distlock.key-prefix", prefix);
        properties.put("distlock.redis.address", address);
        properties.put("distlock.redis.username", USER);
        properties.put("distlock.redis.password", PASSWORD);
        return properties;
    }
}
