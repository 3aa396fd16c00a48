package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.OnTimeout;
import dev.distlock.ReadLocked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.ApplicationScoped;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Semantics 7: every member can be overridden in MicroProfile Config, most specific first:
 * {@code <fqcn>/<method>/Locked/<member>} > {@code <fqcn>/Locked/<member>} > {@code Locked/<member>}
 * > the annotation > the default. Durations are ISO-8601 or milliseconds. Read from the spec the
 * extension resolved at deployment; Redis is not needed.
 */
class ConfigPrecedenceTest {

    @ApplicationScoped
    public static class Shop {
        @Locked(value = "stock:{sku}", waitTime = 100)
        public void reserve(String sku) {
        }

        @Locked("plain")
        public void plain() {
        }

        @Locked(value = "tick", waitTime = 0, onTimeout = OnTimeout.SKIP, holdAtLeast = 10_000)
        public void tick() {
        }

        @ReadLocked(value = "catalog", waitTime = 100)
        public void catalog() {
        }
    }

    private static final String SHOP = Shop.class.getName();

    @Test
    void withoutAnnotationMemberOrConfigTheDefaultWaitTimeApplies() throws Exception {
        assertEquals(5_000, spec(Map.of(), "plain").policy().waitMillis());
    }

    @Test
    void annotationWaitTimeBeatsTheDefault() throws Exception {
        assertEquals(100, spec(Map.of(), "reserve").policy().waitMillis());
    }

    @Test
    void globalKeyBeatsTheAnnotation() throws Exception {
        assertEquals(2_000, spec(Map.of("Locked/waitTime", "PT2S"), "reserve").policy().waitMillis());
    }

    @Test
    void classKeyBeatsTheGlobalKey() throws Exception {
        Map<String, String> config = Map.of(
                "Locked/waitTime", "PT2S",
                SHOP + "/Locked/waitTime", "300");
        assertEquals(300, spec(config, "reserve").policy().waitMillis());
    }

    @Test
    void methodKeyBeatsTheClassKey() throws Exception {
        Map<String, String> config = Map.of(
                "Locked/waitTime", "PT2S",
                SHOP + "/Locked/waitTime", "300",
                SHOP + "/reserve/Locked/waitTime", "PT0.7S");
        assertEquals(700, spec(config, "reserve").policy().waitMillis());
    }

    @Test
    void methodKeyAppliesToThatMethodOnly() throws Exception {
        Map<String, String> config = Map.of(
                SHOP + "/Locked/waitTime", "300",
                SHOP + "/reserve/Locked/waitTime", "700");
        assertEquals(300, spec(config, "plain").policy().waitMillis());
    }

    @Test
    void keysOfOneAnnotationTypeDoNotChangeAnother() throws Exception {
        Map<String, String> config = Map.of("Locked/waitTime", "PT2S", "ReadLocked/waitTime", "400");
        assertEquals(400, spec(config, "catalog").policy().waitMillis());
    }

    @Test
    void leaseTimeCanBeOverridden() throws Exception {
        assertEquals(-1, spec(Map.of(), "reserve").policy().leaseMillis());
        assertEquals(30_000, spec(Map.of(SHOP + "/reserve/Locked/leaseTime", "PT30S"), "reserve").policy().leaseMillis());
    }

    @Test
    void holdAtLeastCanBeOverridden() throws Exception {
        assertEquals(0, spec(Map.of(), "plain").policy().holdAtLeastMillis());
        assertEquals(10_000, spec(Map.of(), "tick").policy().holdAtLeastMillis());
        assertEquals(30_000, spec(Map.of(SHOP + "/tick/Locked/holdAtLeast", "PT30S"), "tick").policy().holdAtLeastMillis());
    }

    @Test
    void onTimeoutCanBeOverridden() throws Exception {
        assertEquals(OnTimeout.FAIL, spec(Map.of(), "reserve").policy().onTimeout());
        assertEquals(OnTimeout.SKIP, spec(Map.of(SHOP + "/Locked/onTimeout", "skip"), "reserve").policy().onTimeout());
    }

    @Test
    void keyTemplateCanBeOverridden() throws Exception {
        LockSpec spec = spec(Map.of(SHOP + "/reserve/Locked/value", "warehouse:{0},sku:{sku}"), "reserve");
        assertEquals(List.of("warehouse:{0}", "sku:{sku}"), spec.keys().sources());
        assertEquals(List.of("warehouse:A%3A1", "sku:A%3A1"), spec.keys().render(new Object[] {"A:1"}));
    }

    @Test
    void overriddenKeyTemplateIsCheckedAtDeploymentToo() {
        // The same rule as for the annotation: the deployment fails, see DeploymentValidationTest.
        Map<String, String> config = withPrefix(Map.of(SHOP + "/reserve/Locked/value", "stock:{nope}"));
        RuntimeException failure = assertThrows(RuntimeException.class,
                () -> DistlockWeld.start(config, Shop.class).close());
        assertTrue(failure.getMessage().contains("Shop.reserve(String)")
                && failure.getMessage().contains("{nope} names no parameter"), failure.getMessage());
    }

    private static LockSpec spec(Map<String, String> config, String methodName) throws Exception {
        Method method = methodName.equals("reserve") ? Shop.class.getMethod(methodName, String.class) : Shop.class.getMethod(methodName);
        try (DistlockWeld weld = DistlockWeld.start(withPrefix(config), Shop.class)) {
            return weld.bean(DistlockSetup.class).specs().spec(method);
        }
    }

    private static Map<String, String> withPrefix(Map<String, String> config) {
        Map<String, String> properties = new HashMap<>(config);
        properties.put("distlock.key-prefix", TestRedis.uniquePrefix("config"));
        return properties;
    }
}
