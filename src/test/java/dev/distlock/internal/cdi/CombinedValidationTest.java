package dev.distlock.internal.cdi;

import dev.distlock.Batch;
import dev.distlock.Combined;
import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.spi.DefinitionException;
import jakarta.enterprise.inject.spi.DeploymentException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A combined method that cannot be served as {@link Combined} says fails the deployment, naming the
 * method and what is wrong, through the portable extension and the build compatible one alike.
 */
class CombinedValidationTest {

    @ApplicationScoped
    public static class NoBatchMethod {
        @Locked("k")
        @Combined("placeAll")
        public String place(String sku) {
            return sku;
        }
    }

    @ApplicationScoped
    public static class BatchMethodTakesAList {
        @Locked("k")
        @Combined("placeAll")
        public String place(String sku) {
            return sku;
        }

        public void placeAll(List<String> skus) {
        }
    }

    @ApplicationScoped
    public static class BatchMethodReturns {
        @Locked("k")
        @Combined("placeAll")
        public String place(String sku) {
            return sku;
        }

        public int placeAll(Batch<String> batch) {
            return 0;
        }
    }

    @ApplicationScoped
    public static class BatchMethodNotPublic {
        @Locked("k")
        @Combined("placeAll")
        public String place(String sku) {
            return sku;
        }

        void placeAll(Batch<String> batch) {
        }
    }

    @ApplicationScoped
    public static class BatchMethodLocked {
        @Locked("k")
        @Combined("placeAll")
        public String place(String sku) {
            return sku;
        }

        @Locked("k")
        public void placeAll(Batch<String> batch) {
        }
    }

    @ApplicationScoped
    public static class NotLocked {
        @Combined("placeAll")
        public String place(String sku) {
            return sku;
        }

        public void placeAll(Batch<String> batch) {
        }
    }

    @ApplicationScoped
    public static class ReadLockedCombined {
        @ReadLocked("k")
        @Combined("readAll")
        public String read(String sku) {
            return sku;
        }

        public void readAll(Batch<String> batch) {
        }
    }

    @ApplicationScoped
    public static class ReturnsAStage {
        @Locked("k")
        @Combined("placeAll")
        public CompletionStage<String> place(String sku) {
            return CompletableFuture.completedFuture(sku);
        }

        public void placeAll(Batch<CompletionStage<String>> batch) {
        }
    }

    @ApplicationScoped
    public static class ReturnsInt {
        @Locked("k")
        @Combined("placeAll")
        public int place(String sku) {
            return 1;
        }

        public void placeAll(Batch<Integer> batch) {
        }
    }

    @ApplicationScoped
    public static class TooBig {
        @Locked("k")
        @Combined(value = "placeAll", max = 1_001)
        public String place(String sku) {
            return sku;
        }

        public void placeAll(Batch<String> batch) {
        }
    }

    @Dependent
    public static class DependentBean {
        @Locked("k")
        @Combined("placeAll")
        public String place(String sku) {
            return sku;
        }

        public void placeAll(Batch<String> batch) {
        }
    }

    @ApplicationScoped
    public static class Valid {
        @Locked("k")
        @Combined("placeAll")
        public String place(String sku) {
            return sku;
        }

        public void placeAll(Batch<String> batch) {
        }
    }

    @Test
    void aMissingBatchMethodFailsDeployment() {
        assertDeploymentFails(Map.of(), NoBatchMethod.class, "@Combined on NoBatchMethod.place(String)",
                "has no method void placeAll(Batch<String>)");
    }

    @Test
    void aBatchMethodThatDoesNotTakeABatchFailsDeployment() {
        assertDeploymentFails(Map.of(), BatchMethodTakesAList.class, "@Combined on BatchMethodTakesAList.place(String)",
                "has no method void placeAll(Batch<String>)", "its placeAll takes [interface java.util.List]");
    }

    @Test
    void aBatchMethodThatReturnsAValueFailsDeployment() {
        assertDeploymentFails(Map.of(), BatchMethodReturns.class, "@Combined on BatchMethodReturns.place(String)",
                "batch method placeAll returns int", "returns void");
    }

    @Test
    void aBatchMethodThatIsNotPublicFailsDeployment() {
        assertDeploymentFails(Map.of(), BatchMethodNotPublic.class, "@Combined on BatchMethodNotPublic.place(String)",
                "must be public, not static and not final");
    }

    @Test
    void aBatchMethodWithALockOfItsOwnFailsDeployment() {
        assertDeploymentFails(Map.of(), BatchMethodLocked.class, "@Combined on BatchMethodLocked.place(String)",
                "carries @Locked", "takes none of its own");
    }

    @Test
    void combinedWithoutALockFailsDeployment() {
        assertDeploymentFails(Map.of(), NotLocked.class, "@Combined on NotLocked.place(String)", "no @Locked or @WriteLocked governs");
    }

    @Test
    void aCombinedReadLockFailsDeployment() {
        assertDeploymentFails(Map.of(), ReadLockedCombined.class, "@Combined on ReadLockedCombined.read(String)",
                "readers of @ReadLocked share the lock anyway");
    }

    @Test
    void aCombinedMethodReturningAStageFailsDeployment() {
        assertDeploymentFails(Map.of(), ReturnsAStage.class, "@Combined on ReturnsAStage.place(String)",
                "returns CompletionStage", "a combined method returns a plain value");
    }

    @Test
    void aCombinedMethodReturningAPrimitiveFailsDeployment() {
        assertDeploymentFails(Map.of(), ReturnsInt.class, "@Combined on ReturnsInt.place(String)", "returns int",
                "return Integer instead");
    }

    @Test
    void aBatchBoundOutOfRangeFailsDeployment() {
        assertDeploymentFails(Map.of(), TooBig.class, "@Combined.max on TooBig.place(String)", "must be 2 to 1000, was 1001");
        assertDeploymentFails(Map.of(Valid.class.getName() + "/place/Combined/max", "1"), Valid.class,
                "@Combined.max on Valid.place(String)", "was 1");
        assertDeploymentFails(Map.of("Combined/max", "lots"), Valid.class, "@Combined on Valid.place(String)",
                "the configured max 'lots' is not a whole number");
    }

    @Test
    void aCombinedMethodOfADependentBeanFailsDeployment() {
        assertDeploymentFails(Map.of(), DependentBean.class, "@Combined on DependentBean.place(String)", "is @Dependent",
                "must be normal-scoped");
    }

    /** The twin of every case above: a well-formed combined method deploys. */
    @Test
    void aWellFormedCombinedMethodDeploys() {
        Map<String, String> properties = Map.of("distlock.key-prefix", TestRedis.uniquePrefix("combined-valid"));
        DistlockWeld.start(properties, Valid.class).close();
        DistlockWeld.startLite(properties, Valid.class).close();
    }

    private static void assertDeploymentFails(Map<String, String> config, Class<?> bean, String... fragments) {
        Map<String, String> properties = new HashMap<>(config);
        properties.putIfAbsent("distlock.key-prefix", TestRedis.uniquePrefix("combined-validation"));
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
