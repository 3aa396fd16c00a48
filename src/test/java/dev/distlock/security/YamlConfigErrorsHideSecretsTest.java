package dev.distlock.security;

import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.LogCapture;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.inject.spi.DefinitionException;
import jakarta.enterprise.inject.spi.DeploymentException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Redisson YAML file ({@code distlock.redis.config}) that does not parse fails the deployment
 * naming the file, the line and the problem, but not the text of the line: SnakeYAML quotes it,
 * and with a typo in the key ({@code pasword:}) or an unclosed quote that line is the password.
 */
class YamlConfigErrorsHideSecretsTest {

    @TempDir
    Path dir;

    @Test
    void aMisspelledPasswordKeyFailsTheDeploymentWithoutThePassword() throws Exception {
        String secret = shortSecret();
        Path yaml = write("typo.yaml", "singleServerConfig:\n  address: \"redis://127.0.0.1:" + Ports.free()
                + "\"\n  pasword: " + secret + "\n");
        String message = deploymentFailure(yaml, secret);
        assertTrue(message.contains("distlock.redis.config=" + yaml) && message.contains("pasword")
                && message.contains("line 3"), message);
    }

    @Test
    void anUnclosedQuoteFailsTheDeploymentWithoutThePassword() throws Exception {
        String secret = shortSecret();
        Path yaml = write("quote.yaml", "singleServerConfig:\n  address: \"redis://127.0.0.1:" + Ports.free()
                + "\"\n  password: \"" + secret + "\n");
        String message = deploymentFailure(yaml, secret);
        assertTrue(message.contains("quoted scalar") && message.contains("line 3"), message);
    }

    @Test
    void redissonsOwnMessageQuotesThePassword() throws Exception {
        // The twin: without distlock removing the quoted lines, the error would carry the password.
        String secret = shortSecret();
        Path yaml = write("raw.yaml", "singleServerConfig:\n  address: \"redis://127.0.0.1:6379\"\n  pasword: " + secret + "\n");
        Exception raw = assertThrows(Exception.class, () -> org.redisson.config.Config.fromYAML(yaml.toFile()));
        assertTrue(raw.getMessage().contains(secret), raw.getMessage());
    }

    /** Short: SnakeYAML cuts a long quoted line short, and a cut secret would not be found whole. */
    private static String shortSecret() {
        return "yp" + UUID.randomUUID().toString().substring(0, 8);
    }

    private Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    private static String deploymentFailure(Path yaml, String secret) {
        String message;
        String logged;
        try (LogCapture capture = LogCapture.start()) {
            RuntimeException failure = assertThrows(RuntimeException.class, () -> DistlockWeld.start(Map.of(
                    "distlock.key-prefix", TestRedis.uniquePrefix("yaml"),
                    "distlock.redis.config", yaml.toString())).close());
            if (!(failure instanceof DefinitionException || failure instanceof DeploymentException)) {
                throw new AssertionError("not a deployment failure: " + failure, failure);
            }
            message = Leaks.printed(failure);
            logged = capture.all();
        }
        Leaks.assertNotIn(message, secret, "the deployment error");
        Leaks.assertNotIn(logged, secret, "the captured logs");
        return message;
    }
}
