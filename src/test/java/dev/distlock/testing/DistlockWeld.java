package dev.distlock.testing;

import dev.distlock.cdi.DistlockExtension;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

import java.util.Map;

/**
 * Starts a Weld container with distlock, the given beans and the given configuration, for tests
 * that need their own configuration or expect the deployment to fail.
 */
public final class DistlockWeld implements AutoCloseable {

    private final TestConfig config;
    private final WeldContainer container;

    private DistlockWeld(Map<String, String> properties, Class<?>... beans) {
        config = TestConfig.with(properties);
        try {
            container = new Weld()
                    .disableDiscovery()
                    .containerId(null)
                    .addExtension(new DistlockExtension())
                    .addBeanClasses(beans)
                    .addBeanClass(Anchor.class)
                    .initialize();
        } catch (RuntimeException e) {
            config.close();
            throw e;
        }
    }

    /** Weld SE refuses a synthetic archive without classes; tests that need no beans of their own get this one. */
    @jakarta.enterprise.context.Dependent
    static class Anchor {
    }

    public static DistlockWeld start(Map<String, String> properties, Class<?>... beans) {
        return new DistlockWeld(properties, beans);
    }

    public <T> T bean(Class<T> type) {
        return container.select(type).get();
    }

    public WeldContainer container() {
        return container;
    }

    @Override
    public void close() {
        try {
            container.shutdown();
        } finally {
            config.close();
        }
    }
}
