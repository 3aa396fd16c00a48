package dev.distlock.memory;

import java.util.List;

/**
 * Keeps in-memory locks to tests: they exclude callers in one JVM only, so an application of two
 * servers that used them by mistake would run every locked method on both at once. They start
 * where a test framework is on the class path, or where {@value #ALLOWED} is {@code true}.
 */
final class TestsOnly {

    /** The setting (MicroProfile Config, or a system property for the builder) that allows them anywhere. */
    public static final String ALLOWED = "distlock.in-memory.allowed";

    /** One class of each test framework an application's tests are likely to run under. */
    private static final List<String> TEST_FRAMEWORKS = List.of(
            "org.junit.jupiter.api.Test", "org.junit.Test", "org.testng.annotations.Test");

    /** The locks this JVM's in-memory backend keeps; every user of in-memory locks in the JVM shares them. */
    private static final InMemoryLockBackend SHARED = new InMemoryLockBackend();

    private TestsOnly() {
    }

    /**
     * The JVM's in-memory store, if this is a test or {@code allowed}.
     *
     * @param how    how the application asked for it, for the message
     * @param loader where the application's classes (and its test framework) are
     * @throws IllegalStateException saying why not, and what to do instead
     */
    public static InMemoryLockBackend store(boolean allowed, String how, ClassLoader loader) {
        if (!allowed && !isTest(loader)) {
            throw new IllegalStateException(how + ": distlock's in-memory locks exclude callers in this JVM only, so "
                    + "they are for tests, and no test framework (JUnit, TestNG) is on the class path. Use a real "
                    + "backend (distlock.backend=redis, zookeeper or jdbc), or set " + ALLOWED + "=true if this "
                    + "application really runs as one JVM.");
        }
        return SHARED;
    }

    static boolean isTest(ClassLoader loader) {
        for (String name : TEST_FRAMEWORKS) {
            try {
                Class.forName(name, false, loader);
                return true;
            } catch (ClassNotFoundException | LinkageError absent) {
                // not this one
            }
        }
        return false;
    }

    /** Where an application's classes are: the thread's context loader, else distlock's own. */
    public static ClassLoader applicationLoader() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : TestsOnly.class.getClassLoader();
    }
}
