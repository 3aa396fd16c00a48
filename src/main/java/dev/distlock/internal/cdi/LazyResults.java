package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;

/**
 * The adapters of lazy results, by class name: each is loaded only when a locked method returns
 * its library's type, the way {@link OwnBeans} registers observability only where its APIs exist.
 */
final class LazyResults {

    private static final String UNI = "dev.distlock.internal.cdi.mutiny.LockedUnis";

    /** Made on first use: never for an application whose locked methods return no {@code Uni}. */
    private static volatile LazyResult uni;

    private LazyResults() {
    }

    /**
     * The adapter of Mutiny's {@code Uni}, for a method returning {@code uniType}.
     *
     * @throws LockDefinitionException when distlock cannot see Mutiny, or sees another copy of it
     */
    static LazyResult uni(Class<?> uniType, String site) {
        LazyResult adapter = uni;
        if (adapter == null) {
            synchronized (LazyResults.class) {
                if (uni == null) {
                    uni = load(UNI, site);
                }
                adapter = uni;
            }
        }
        if (!adapter.type().equals(uniType)) {
            throw new LockDefinitionException(site + " returns " + uniType.getName() + " of " + uniType.getClassLoader()
                    + ", but distlock sees Mutiny's Uni of " + adapter.type().getClassLoader()
                    + ": put Mutiny and distlock where one class loader sees both (one copy of Mutiny)");
        }
        return adapter;
    }

    private static LazyResult load(String className, String site) {
        try {
            return (LazyResult) Class.forName(className, true, LazyResults.class.getClassLoader()).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new LockDefinitionException(site + " returns Mutiny's Uni, but distlock cannot load its adapter " + className
                    + " (Mutiny not visible to distlock's class loader?): " + e);
        }
    }
}
