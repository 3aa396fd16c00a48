package dev.distlock.testing;

import dev.distlock.testkit.TestConfig;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Map;

/**
 * Registers a {@link TestConfig} with a key prefix of the test class's own for as long as the
 * class runs, so that its locks never meet another test's in the shared Redis.
 */
public final class KeyPrefixConfig implements BeforeAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) {
        String prefix = TestRedis.uniquePrefix(context.getRequiredTestClass().getSimpleName());
        TestConfig config = TestConfig.with(Map.of("distlock.key-prefix", prefix));
        // Closed when the class's context closes, after Weld has shut down in afterAll.
        context.getStore(ExtensionContext.Namespace.create(KeyPrefixConfig.class))
                .put(TestConfig.class, (ExtensionContext.Store.CloseableResource) config::close);
    }
}
