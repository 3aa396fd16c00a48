package dev.distlock.testing;

import dev.distlock.cdi.DistlockExtension;
import jakarta.enterprise.inject.spi.Extension;
import org.jboss.weld.lite.extension.translator.LiteExtensionTranslator;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

import java.util.List;
import java.util.Map;

/**
 * Starts a Weld container with distlock, the given beans and the given configuration, for tests
 * that need their own configuration or expect the deployment to fail; through the portable
 * extension (full CDI) or the build compatible one (CDI Lite).
 */
public final class DistlockWeld implements AutoCloseable {

    private final TestConfig config;
    private final WeldContainer container;

    private DistlockWeld(Map<String, String> properties, Extension distlock, Class<?>... beans) {
        config = TestConfig.with(properties);
        try {
            container = new Weld()
                    .disableDiscovery()
                    .containerId(null)
                    .addExtension(distlock)
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
        return new DistlockWeld(properties, new DistlockExtension(), beans);
    }

    /**
     * As a CDI Lite runtime does it: distlock's build compatible extension only, run through
     * Weld's translator of build compatible extensions; the portable extension is not there.
     */
    public static DistlockWeld startLite(Map<String, String> properties, Class<?>... beans) {
        return new DistlockWeld(properties,
                new LiteExtensionTranslator(List.of(LiteExtension.class), DistlockWeld.class.getClassLoader()), beans);
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
