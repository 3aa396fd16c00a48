package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.OnTimeout;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.DefinitionException;
import jakarta.enterprise.inject.spi.DeploymentException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Semantics 1, 2, 3, 7, 8: a wrong lock definition or configuration fails the deployment, with a
 * message that names the class and method, the member and the value, through the portable
 * extension and through the build compatible one alike. Redis is never contacted.
 */
class DeploymentValidationTest {

    @ApplicationScoped
    public static class UnknownParameter {
        @Locked("stock:{nope}")
        public void reserve(String sku, int quantity) {
        }
    }

    @ApplicationScoped
    public static class PositionOutOfRange {
        @Locked("stock:{2}")
        public void reserve(String sku, int quantity) {
        }
    }

    @ApplicationScoped
    public static class UnclosedPlaceholder {
        @Locked("stock:{sku")
        public void reserve(String sku) {
        }
    }

    @ApplicationScoped
    public static class NegativeWaitTime {
        @Locked(value = "stock", waitTime = -5)
        public void reserve() {
        }
    }

    @ApplicationScoped
    public static class ZeroLeaseTime {
        @Locked(value = "stock", leaseTime = 0)
        public void reserve() {
        }
    }

    @ApplicationScoped
    public static class ReadAndWriteOnOneMethod {
        @ReadLocked("catalog")
        @WriteLocked("catalog")
        public void reprice() {
        }
    }

    @ApplicationScoped
    public static class ReturnsFuture {
        @Locked("report")
        public Future<String> render() {
            return CompletableFuture.completedFuture("done");
        }
    }

    @ApplicationScoped
    public static class SkipsReturningInt {
        @Locked(value = "counter", onTimeout = OnTimeout.SKIP)
        public int next() {
            return 1;
        }
    }

    @ApplicationScoped
    public static class Configured {
        @Locked("stock")
        public void reserve() {
        }
    }

    @ApplicationScoped
    public static class PrivateLocked {
        public void reserve() {
            reserveUnderLock();
        }

        @Locked("stock")
        private void reserveUnderLock() {
        }
    }

    /** Has no toString() of its own: every call would lock another key. */
    public static final class Order {
        final String id = "o-1";
    }

    @ApplicationScoped
    public static class KeyWithoutToString {
        @Locked("order:{order}")
        public void ship(Order order) {
        }
    }

    @Test
    void unknownParameterInTemplateFailsDeployment() {
        assertDeploymentFails(Map.of(), UnknownParameter.class,
                "UnknownParameter.reserve(String,int)", "@Locked.value", "stock:{nope}", "{nope} names no parameter", "[sku, quantity]");
    }

    @Test
    void parameterPositionOutOfRangeFailsDeployment() {
        assertDeploymentFails(Map.of(), PositionOutOfRange.class,
                "PositionOutOfRange.reserve(String,int)", "@Locked.value", "stock:{2}", "position 2", "2 parameter(s)");
    }

    @Test
    void unclosedPlaceholderFailsDeployment() {
        assertDeploymentFails(Map.of(), UnclosedPlaceholder.class,
                "UnclosedPlaceholder.reserve(String)", "@Locked.value", "stock:{sku", "not closed");
    }

    @Test
    void waitTimeBelowMinusOneFailsDeployment() {
        assertDeploymentFails(Map.of(), NegativeWaitTime.class,
                "NegativeWaitTime.reserve()", "@Locked.waitTime", "must be >= -1", "was -5");
    }

    @Test
    void zeroLeaseTimeFailsDeployment() {
        assertDeploymentFails(Map.of(), ZeroLeaseTime.class,
                "ZeroLeaseTime.reserve()", "@Locked.leaseTime", "was 0");
    }

    @Test
    void readLockedAndWriteLockedOnOneMethodFailDeployment() {
        assertDeploymentFails(Map.of(), ReadAndWriteOnOneMethod.class,
                "ReadAndWriteOnOneMethod.reprice()", "@ReadLocked and @WriteLocked", "one lock annotation");
    }

    @Test
    void futureReturnTypeFailsDeployment() {
        assertDeploymentFails(Map.of(), ReturnsFuture.class,
                "ReturnsFuture.render()", "@Locked", "returns Future", "CompletionStage");
    }

    @Test
    void skipOnTimeoutWithPrimitiveResultFailsDeployment() {
        assertDeploymentFails(Map.of(), SkipsReturningInt.class,
                "SkipsReturningInt.next()", "@Locked.onTimeout", "SKIP", "returns int");
    }

    @Test
    void invalidMethodWaitTimeInConfigFailsDeployment() {
        String key = Configured.class.getName() + "/reserve/Locked/waitTime";
        assertDeploymentFails(Map.of(key, "abc"), Configured.class,
                key, "Configured.reserve()", "'abc'", "PT5S");
    }

    @Test
    void invalidGlobalOnTimeoutInConfigFailsDeployment() {
        assertDeploymentFails(Map.of("Locked/onTimeout", "MAYBE"), Configured.class,
                "Configured.reserve()", "Locked/onTimeout", "'MAYBE'", "[FAIL, SKIP]");
    }

    @Test
    void lockOnPrivateMethodFailsDeployment() {
        assertDeploymentFails(Map.of(), PrivateLocked.class,
                "@Locked", "PrivateLocked.reserveUnderLock()", "private");
    }

    @Test
    void keyParameterWithoutToStringFailsDeployment() {
        assertDeploymentFails(Map.of(), KeyWithoutToString.class,
                "KeyWithoutToString.ship(Order)", "@Locked.value", "{order}", "does not override toString()");
    }

    @Test
    void unknownRedisModeFailsDeployment() {
        assertDeploymentFails(Map.of("distlock.redis.mode", "foo"), Configured.class,
                "distlock.redis.mode=foo", "single, sentinel, cluster, replicated");
    }

    @Test
    void redisAddressWithoutSchemeFailsDeployment() {
        assertDeploymentFails(Map.of("distlock.redis.address", "localhost:6379"), Configured.class,
                "distlock.redis.address=localhost:6379", "redis://");
    }

    @Test
    void blankKeyPrefixFailsDeployment() {
        assertDeploymentFails(Map.of("distlock.key-prefix", "   "), Configured.class,
                "distlock.key-prefix", "must not be blank");
    }

    @Test
    void aNodeNameTooLongForTheStoreFailsDeployment() {
        String longName = "shop-".repeat(13) + "x";
        assertDeploymentFails(Map.of("distlock.node-name", longName), Configured.class,
                "distlock.node-name=" + longName, "at most 64 characters (it had 66)", "leave it unset for the host's name");
    }

    @Test
    void aNodeNameWithALineBreakFailsDeployment() {
        assertDeploymentFails(Map.of("distlock.node-name", "shop\n1"), Configured.class,
                "distlock.node-name=shop", "must not hold control characters or line breaks");
    }

    @Test
    void fencedValueThatIsNotABooleanFailsDeployment() {
        assertDeploymentFails(Map.of("Locked/fenced", "maybe"), Configured.class,
                "Locked/fenced", "'maybe' is neither true nor false");
    }

    @Test
    void verifyBeforeCommitThatIsNotABooleanFailsDeployment() {
        assertDeploymentFails(Map.of("distlock.transaction.verify-before-commit", "yes"), Configured.class,
                "distlock.transaction.verify-before-commit=yes", "must be true or false");
    }

    @Test
    void negativeHandoffCountFailsDeployment() {
        assertDeploymentFails(Map.of("distlock.handoff.max-count", "-1"), Configured.class,
                "distlock.handoff.max-count=-1", "whole number >= 0");
    }

    @Test
    void handoffTimeWithoutUnitFailsDeployment() {
        assertDeploymentFails(Map.of("distlock.handoff.max-time", "fast"), Configured.class,
                "distlock.handoff.max-time=fast");
    }

    /**
     * A counter made again is seeded from the Redis host's clock: with an expiry shorter than the
     * clock steps a host may take, a fenced lock's tokens could go back (issue 36, item 5).
     */
    @Test
    void aFencingCounterExpiryShorterThanAnHourFailsDeployment() {
        assertDeploymentFails(Map.of("distlock.redis.fencing-counter-expiry", "1"), Configured.class,
                "distlock.redis.fencing-counter-expiry=1", "at least PT1H");
    }

    /**
     * The watchdog renews every third of its timeout, and one renewal may take the command timeout
     * once per attempt: 3 s × 3 attempts and two 200 ms delays here, 9.4 s, more than the two thirds
     * of a 10 s watchdog that a renewal has before the lease runs out.
     */
    @Test
    void aWatchdogTimeoutThatOneSlowRenewalOutlastsFailsDeployment() {
        assertDeploymentFails(Map.of("distlock.redis.watchdog-timeout", "PT10S", "distlock.redis.timeout", "PT3S",
                        "distlock.redis.retry-attempts", "2"), Configured.class,
                "distlock.redis.watchdog-timeout=10000", "distlock.redis.timeout", "distlock.redis.retry-attempts", "at least 14100");
    }

    /** Both ways distlock enters a container, the portable extension and the build compatible one, fail alike. */
    private static void assertDeploymentFails(Map<String, String> config, Class<?> bean, String... fragments) {
        Map<String, String> properties = new HashMap<>(config);
        properties.putIfAbsent("distlock.key-prefix", TestRedis.uniquePrefix("validation"));
        for (boolean lite : new boolean[] {false, true}) {
            RuntimeException failure = assertThrows(RuntimeException.class, () -> {
                (lite ? DistlockWeld.startLite(properties, bean) : DistlockWeld.start(properties, bean)).close();
                fail("deployed" + (lite ? " through the build compatible extension" : ""));
            });
            if (!(failure instanceof DefinitionException || failure instanceof DeploymentException)) {
                throw new AssertionError("not a deployment failure: " + failure, failure);
            }
            String message = failure.getMessage();
            for (String fragment : fragments) {
                assertTrue(message.contains(fragment), () -> "'" + fragment + "' missing from" + (lite ? " (CDI Lite)" : "") + ": " + message);
            }
        }
    }
}
