package dev.distlock.testkit;

import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.spi.Extension;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

import java.util.Map;

/**
 * A Weld SE container with discovery off: the given extensions and bean classes and nothing else,
 * over MicroProfile Config holding the given properties ({@link TestConfig}). The config is
 * registered before Weld starts and released after it stops. Needs Weld SE and SmallRye Config on
 * the class path (the kit leaves their versions to the user).
 */
public final class CdiContainer implements AutoCloseable {

    private final TestConfig config;
    private final WeldContainer container;

    private CdiContainer(Map<String, String> properties, Extension[] extensions, Class<?>[] beans) {
        config = TestConfig.with(properties);
        try {
            container = new Weld()
                    .disableDiscovery()
                    .containerId(null)
                    .addExtensions(extensions)
                    .addBeanClasses(beans)
                    .addBeanClass(Anchor.class)
                    .initialize();
        } catch (RuntimeException e) {
            config.close();
            throw e;
        }
    }

    /** Weld SE refuses a synthetic archive without classes; a container of no beans of its own gets this one. */
    @Dependent
    static class Anchor {
    }

    public static CdiContainer start(Map<String, String> properties, Extension extension, Class<?>... beans) {
        return new CdiContainer(properties, new Extension[] {extension}, beans);
    }

    /** With several extensions, e.g. distlock's and a transaction manager's. */
    public static CdiContainer start(Map<String, String> properties, Extension[] extensions, Class<?>... beans) {
        return new CdiContainer(properties, extensions.clone(), beans);
    }

    /** Every message of a failed start: the failure, its causes and what they suppressed, a line each. */
    public static String messages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t).append('\n');
            for (Throwable suppressed : t.getSuppressed()) {
                messages.append(suppressed).append('\n');
            }
        }
        return messages.toString();
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
