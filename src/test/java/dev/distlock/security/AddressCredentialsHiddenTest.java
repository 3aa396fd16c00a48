package dev.distlock.security;

import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.LogCapture;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.inject.spi.DefinitionException;
import jakarta.enterprise.inject.spi.DeploymentException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An address with a password in it that distlock refuses at deployment is shown in the error
 * without the password, however it is mistyped.
 */
class AddressCredentialsHiddenTest {

    @Test
    void aMistypedAddressIsShownWithoutItsPassword() {
        String secret = "addr-pw-" + UUID.randomUUID();
        int port = Ports.free();
        List<Map<String, String>> mistakes = new ArrayList<>();
        for (String address : List.of(
                "redis:/app:" + secret + "@127.0.0.1:" + port,      // one slash
                "app:" + secret + "@127.0.0.1:" + port,             // no scheme
                "http://app:" + secret + "@127.0.0.1:" + port,      // another scheme
                "redis://app:" + secret + "@127.0.0.1:",            // no port
                "redis://app:" + secret + "@127.0.0.1")) {          // no port, the password's ':' taken for its colon
            mistakes.add(Map.of("distlock.redis.address", address));
        }
        mistakes.add(Map.of("distlock.redis.mode", "cluster", "distlock.redis.addresses",
                "redis://127.0.0.1:" + port + ", redis:/app:" + secret + "@127.0.0.1:" + port));
        for (Map<String, String> settings : mistakes) {
            String message;
            String logged;
            try (LogCapture capture = LogCapture.start()) {
                RuntimeException failure = assertThrows(RuntimeException.class, () -> DistlockWeld.start(
                        withPrefix(settings)).close(), settings::toString);
                assertTrue(failure instanceof DefinitionException || failure instanceof DeploymentException, failure::toString);
                message = Leaks.printed(failure);
                logged = capture.all();
            }
            assertTrue(message.contains("distlock.redis.address"), message);
            assertTrue(message.contains("127.0.0.1"), "the error still says which address: " + message);
            Leaks.assertNotIn(message, secret, "the deployment error for " + settings.keySet());
            Leaks.assertNotIn(logged, secret, "the captured logs");
        }
    }

    private static Map<String, String> withPrefix(Map<String, String> settings) {
        java.util.HashMap<String, String> all = new java.util.HashMap<>(settings);
        all.put("distlock.key-prefix", TestRedis.uniquePrefix("address"));
        return all;
    }
}
