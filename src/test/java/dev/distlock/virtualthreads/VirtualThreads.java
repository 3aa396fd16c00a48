package dev.distlock.virtualthreads;

import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.ThreadFactory;

/**
 * Virtual threads without compiling against JDK 21: the library and its tests are built with
 * {@code --release 17}, so {@code Thread.ofVirtual()} is reached by reflection, through its public
 * interfaces. Only usable on a JDK 21 or later.
 */
final class VirtualThreads {

    private VirtualThreads() {
    }

    /** A factory of virtual threads named {@code prefix0}, {@code prefix1}, ... */
    static ThreadFactory factory(String prefix) {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            builder = ofVirtual.getMethod("name", String.class, long.class).invoke(builder, prefix, 0L);
            return (ThreadFactory) ofVirtual.getMethod("factory").invoke(builder);
        } catch (NoSuchMethodException | ClassNotFoundException e) {
            throw new IllegalStateException("virtual threads need Java 21 or later; this is Java " + Runtime.version(), e);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot make a virtual thread factory", e);
        }
    }

    /** Whether {@code thread} is virtual ({@code Thread.isVirtual()}, by reflection). */
    static boolean isVirtual(Thread thread) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
