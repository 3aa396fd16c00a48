package dev.distlock.testing;

import dev.distlock.internal.cdi.DistlockExtension;
import dev.distlock.testkit.CdiContainer;
import jakarta.enterprise.inject.spi.Extension;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.lite.extension.translator.LiteExtensionTranslator;

import java.util.List;
import java.util.Map;

/**
 * A Weld container ({@link CdiContainer}) with distlock, the given beans and the given
 * configuration, for tests that need their own configuration or expect the deployment to fail;
 * through the portable extension (full CDI) or the build compatible one (CDI Lite).
 */
public final class DistlockWeld implements AutoCloseable {

    private final CdiContainer container;

    private DistlockWeld(CdiContainer container) {
        this.container = container;
    }

    public static DistlockWeld start(Map<String, String> properties, Class<?>... beans) {
        return new DistlockWeld(CdiContainer.start(properties, new DistlockExtension(), beans));
    }

    /** With other extensions beside distlock's portable one, e.g. a transaction manager's. */
    public static DistlockWeld start(Map<String, String> properties, List<Extension> others, Class<?>... beans) {
        Extension[] extensions = new Extension[others.size() + 1];
        extensions[0] = new DistlockExtension();
        for (int i = 0; i < others.size(); i++) {
            extensions[i + 1] = others.get(i);
        }
        return new DistlockWeld(CdiContainer.start(properties, extensions, beans));
    }

    /**
     * As a CDI Lite runtime does it: distlock's build compatible extension only, run through
     * Weld's translator of build compatible extensions; the portable extension is not there.
     */
    public static DistlockWeld startLite(Map<String, String> properties, Class<?>... beans) {
        return new DistlockWeld(CdiContainer.start(properties,
                new LiteExtensionTranslator(List.of(LiteExtension.class), DistlockWeld.class.getClassLoader()), beans));
    }

    /** CDI Lite, as {@link #startLite}, with other (portable) extensions beside it, e.g. a transaction manager's. */
    public static DistlockWeld startLite(Map<String, String> properties, List<Extension> others, Class<?>... beans) {
        Extension[] extensions = new Extension[others.size() + 1];
        extensions[0] = new LiteExtensionTranslator(List.of(LiteExtension.class), DistlockWeld.class.getClassLoader());
        for (int i = 0; i < others.size(); i++) {
            extensions[i + 1] = others.get(i);
        }
        return new DistlockWeld(CdiContainer.start(properties, extensions, beans));
    }

    /** Every message of a failed start, a line each ({@link CdiContainer#messages}). */
    public static String messages(Throwable failure) {
        return CdiContainer.messages(failure);
    }

    public <T> T bean(Class<T> type) {
        return container.bean(type);
    }

    public WeldContainer container() {
        return container.container();
    }

    @Override
    public void close() {
        container.close();
    }
}
