package dev.distlock.security;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.Locked;
import dev.distlock.internal.cdi.observability.LockStoreReadiness;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.LogCapture;
import dev.distlock.testing.SecuredRedis;
import dev.distlock.testing.TlsMaterial;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No password reaches a log line, an exception (message, cause chain, stack trace) or the
 * readiness data, while distlock connects with a wrong password, with a password in the address,
 * with a wrong trust store password, and with the right password. Logging is captured at every
 * level (debug included) through every route the test class path has: java.util.logging, which
 * System.Logger (distlock's) and SLF4J (Redisson's, Netty's, via slf4j-jdk14) end in, and
 * System.out / System.err. The twins show the capture sees what is logged and the check finds a
 * secret that was.
 */
class SecretsStayOutOfLogsTest {

    private static final String USER = "app";

    @TempDir
    Path keys;

    @ApplicationScoped
    public static class Ledger {
        @Locked("ledger:{account}")
        public <T> T post(String account, Callable<T> body) throws Exception {
            return body.call();
        }
    }

    @Dependent
    public static class Orders {
        @Inject @GeneratedId("order") IdGenerator ids;
    }

    @Test
    void noPasswordIsLoggedOrShownWhileConnectingRightOrWrong() throws Exception {
        String right = "right-pw-" + UUID.randomUUID();
        String wrong = "wrong-pw-" + UUID.randomUUID();
        String inAddress = "url-pw-" + UUID.randomUUID();
        String wrongStore = "store-pw-" + UUID.randomUUID();
        TlsMaterial tls = TlsMaterial.selfSigned(keys, "IP:127.0.0.1");
        List<String> shown = new ArrayList<>(); // exceptions and readiness data
        String logged;
        SecuredRedis redis = SecuredRedis.start(USER, right, tls);
        try (LogCapture capture = LogCapture.start()) {
            Map<String, String> wrongPassword = settings("redis://127.0.0.1:" + redis.port());
            wrongPassword.put("distlock.redis.username", USER);
            wrongPassword.put("distlock.redis.password", wrong);
            failToConnect(wrongPassword, shown);

            failToConnect(settings("redis://" + USER + ":" + inAddress + "@127.0.0.1:" + redis.port()), shown);

            Map<String, String> wrongTrustStorePassword = settings("rediss://127.0.0.1:" + redis.tlsPort());
            wrongTrustStorePassword.put("distlock.redis.ssl-truststore", tls.trustStore().toString());
            wrongTrustStorePassword.put("distlock.redis.ssl-truststore-password", wrongStore);
            RuntimeException deployment = assertThrows(RuntimeException.class,
                    () -> DistlockWeld.start(wrongTrustStorePassword, Ledger.class).close());
            assertTrue(deployment.getMessage().contains("distlock.redis.ssl-truststore"), deployment.getMessage());
            shown.add(Leaks.printed(deployment));

            Map<String, String> rightOverTls = settings("rediss://127.0.0.1:" + redis.tlsPort());
            rightOverTls.put("distlock.redis.username", USER);
            rightOverTls.put("distlock.redis.password", right);
            rightOverTls.put("distlock.redis.ssl-truststore", tls.trustStore().toString());
            rightOverTls.put("distlock.redis.ssl-truststore-password", tls.trustStorePassword());
            try (DistlockWeld weld = DistlockWeld.start(rightOverTls, Ledger.class, Orders.class)) {
                assertEquals("ran", weld.bean(Ledger.class).post("acc-1", () -> "ran"));
                assertTrue(weld.bean(Orders.class).ids.nextId() > 0);
                assertEquals(HealthCheckResponse.Status.UP, readiness(weld).getStatus());
            }
            logged = capture.all();

            // The capture saw what the libraries logged about these connections, at debug level too.
            assertTrue(logged.contains("127.0.0.1:" + redis.port()), "the capture saw no line about the server");
            assertTrue(capture.records().size() > 50, "only " + capture.records().size() + " records captured");
        } finally {
            redis.close();
        }
        for (String secret : List.of(right, wrong, inAddress, wrongStore, tls.trustStorePassword())) {
            Leaks.assertNotIn(logged, secret, "the captured logs");
            for (String text : shown) {
                Leaks.assertNotIn(text, secret, "an exception or the readiness data");
            }
        }
    }

    @Test
    void theCaptureSeesEveryRouteALibraryLogsThrough() {
        String marker = "marker-" + UUID.randomUUID();
        String logged;
        try (LogCapture capture = LogCapture.start()) {
            LoggerFactory.getLogger("some.library").debug("slf4j {}", marker);
            System.getLogger("dev.distlock.internal.cdi.Anything").log(System.Logger.Level.DEBUG, "system-logger " + marker);
            Logger.getLogger("org.jboss.weld.Something").finest("jul " + marker);
            System.err.println("stderr " + marker);
            System.out.println("stdout " + marker);
            logged = capture.all();
        }
        for (String route : List.of("slf4j ", "system-logger ", "jul ", "stderr ", "stdout ")) {
            assertTrue(logged.contains(route + marker), route + "was not captured");
        }
    }

    @Test
    void aSecretThatWasLoggedOrThrownIsFound() {
        // The twin of the first test: were a password logged (here at debug level, as an SLF4J
        // argument) or put into an exception's cause, the same checks would fail.
        String secret = "leaked-" + UUID.randomUUID();
        String logged;
        try (LogCapture capture = LogCapture.start()) {
            LoggerFactory.getLogger("org.redisson.Imagined").debug("AUTH {} {}", USER, secret);
            logged = capture.all();
        }
        assertThrows(AssertionError.class, () -> Leaks.assertNotIn(logged, secret, "the captured logs"));
        Exception wrapped = new LockServiceUnavailableException("Redis refused",
                new IllegalStateException("connection", new IllegalArgumentException("redis://u:" + secret + "@h:1")));
        assertThrows(AssertionError.class, () -> Leaks.assertNotIn(Leaks.printed(wrapped), secret, "an exception"));
    }

    /** Deploys, calls a locked method, asks the readiness check, asks for an id; keeps what each showed. */
    private static void failToConnect(Map<String, String> properties, List<String> shown) {
        try (DistlockWeld weld = DistlockWeld.start(properties, Ledger.class, Orders.class)) {
            LockServiceUnavailableException failure = assertThrows(LockServiceUnavailableException.class,
                    () -> weld.bean(Ledger.class).post("acc-1", () -> "ran"));
            assertTrue(failure.getMessage().contains("authentication failed"), failure.getMessage());
            shown.add(Leaks.printed(failure));
            HealthCheckResponse readiness = readiness(weld);
            assertEquals(HealthCheckResponse.Status.DOWN, readiness.getStatus());
            shown.add(String.valueOf(readiness.getData()));
            RuntimeException noId = assertThrows(RuntimeException.class, () -> weld.bean(Orders.class).ids.nextId());
            shown.add(Leaks.printed(noId));
        }
    }

    private static HealthCheckResponse readiness(DistlockWeld weld) {
        return weld.container().select(LockStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
    }

    private static Map<String, String> settings(String address) {
        Map<String, String> properties = new HashMap<>();
        properties.put("distlock.key-prefix", TestRedis.uniquePrefix("secrets"));
        properties.put("distlock.redis.address", address);
        return properties;
    }
}
