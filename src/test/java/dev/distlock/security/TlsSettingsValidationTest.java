package dev.distlock.security;

import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TlsMaterial;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.inject.spi.DefinitionException;
import jakarta.enterprise.inject.spi.DeploymentException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A TLS setting that cannot work fails the deployment, naming the key and the path, never a
 * password. Redis is never contacted (nothing listens on the addresses).
 */
class TlsSettingsValidationTest {

    private static final String STORE_PASSWORD_GIVEN = "given-store-pw-" + UUID.randomUUID();

    @TempDir
    static Path keys;

    private static TlsMaterial tls;

    @BeforeAll
    static void makeKeys() {
        tls = TlsMaterial.selfSigned(keys, "IP:127.0.0.1");
    }

    @Test
    void aMissingTruststoreFileFailsTheDeployment() {
        Path missing = keys.resolve("nowhere/truststore.p12");
        String message = deploymentFailure(Map.of(
                "distlock.redis.ssl-truststore", missing.toString(),
                "distlock.redis.ssl-truststore-password", STORE_PASSWORD_GIVEN));
        assertTrue(message.contains("distlock.redis.ssl-truststore=" + missing) && message.contains("no such file: " + missing),
                message);
        Leaks.assertNotIn(message, STORE_PASSWORD_GIVEN, "the deployment error");
    }

    @Test
    void aMissingFileUrlFailsTheDeploymentToo() {
        String url = keys.resolve("absent.p12").toUri().toString();
        String message = deploymentFailure(Map.of("distlock.redis.ssl-truststore", url));
        assertTrue(message.contains("distlock.redis.ssl-truststore=" + url) && message.contains("no such file"), message);
    }

    @Test
    void aWrongTruststorePasswordFailsTheDeploymentWithoutShowingIt() {
        String message = deploymentFailure(Map.of(
                "distlock.redis.ssl-truststore", tls.trustStore().toString(),
                "distlock.redis.ssl-truststore-password", STORE_PASSWORD_GIVEN));
        assertTrue(message.contains("distlock.redis.ssl-truststore=" + tls.trustStore())
                && message.contains("password was incorrect") && message.contains("ssl-truststore-password right?"), message);
        Leaks.assertNotIn(message, STORE_PASSWORD_GIVEN, "the deployment error");
        Leaks.assertNotIn(message, tls.trustStorePassword(), "the deployment error");
    }

    @Test
    void aFileThatIsNoKeyStoreFailsTheDeployment() throws Exception {
        Path pem = tls.certificatePem(); // a certificate, but PEM, not a key store
        String message = deploymentFailure(Map.of("distlock.redis.ssl-truststore", pem.toString()));
        assertTrue(message.contains("distlock.redis.ssl-truststore=" + pem) && message.contains("cannot be opened"), message);
        assertTrue(Files.size(pem) > 0);
    }

    @Test
    void aTruststoreWithPlainRedisFailsTheDeployment() {
        Map<String, String> properties = new HashMap<>();
        properties.put("distlock.redis.address", "redis://127.0.0.1:" + Ports.free());
        properties.put("distlock.redis.ssl-truststore", tls.trustStore().toString());
        properties.put("distlock.redis.ssl-truststore-password", tls.trustStorePassword());
        String message = deploymentFailure(properties);
        assertTrue(message.contains("no address uses rediss://"), message);
        Leaks.assertNotIn(message, tls.trustStorePassword(), "the deployment error");
    }

    @Test
    void anUnknownVerificationModeFailsTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.redis.ssl-verification", "none"));
        assertTrue(message.contains("distlock.redis.ssl-verification=none") && message.contains("must be strict")
                && message.contains("ca-only"), message);
    }

    @Test
    void aTruststorePasswordWithoutTruststoreFailsTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.redis.ssl-truststore-password", STORE_PASSWORD_GIVEN));
        assertTrue(message.contains("distlock.redis.ssl-truststore-password is set, but distlock.redis.ssl-truststore is not"), message);
        Leaks.assertNotIn(message, STORE_PASSWORD_GIVEN, "the deployment error");
    }

    @Test
    void aValidTruststoreDeploys() {
        // The twin of the failures above: the same keys, right, deploy (no connection is made yet).
        Map<String, String> properties = new HashMap<>();
        properties.put("distlock.key-prefix", TestRedis.uniquePrefix("tls-valid"));
        properties.put("distlock.redis.address", "rediss://127.0.0.1:" + Ports.free());
        properties.put("distlock.redis.ssl-truststore", tls.trustStore().toString());
        properties.put("distlock.redis.ssl-truststore-password", tls.trustStorePassword());
        properties.put("distlock.redis.ssl-verification", "STRICT");
        DistlockWeld.start(properties).close();
    }

    /** Deploys against a rediss:// address with {@code settings} and returns the deployment error. */
    private static String deploymentFailure(Map<String, String> settings) {
        Map<String, String> properties = new HashMap<>(settings);
        properties.putIfAbsent("distlock.key-prefix", TestRedis.uniquePrefix("tls-validation"));
        properties.putIfAbsent("distlock.redis.address", "rediss://127.0.0.1:" + Ports.free());
        RuntimeException failure = assertThrows(RuntimeException.class, () -> {
            DistlockWeld.start(properties).close();
            fail("deployed");
        });
        if (!(failure instanceof DefinitionException || failure instanceof DeploymentException)) {
            throw new AssertionError("not a deployment failure: " + failure, failure);
        }
        return Leaks.printed(failure);
    }
}
