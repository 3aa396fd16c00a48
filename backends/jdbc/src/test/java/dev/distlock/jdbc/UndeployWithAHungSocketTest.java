package dev.distlock.jdbc;

import dev.distlock.spi.LockBackend;
import dev.distlock.testing.OpenedConnections;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import dev.distlock.testkit.PartitionProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.lang.ref.WeakReference;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application undeployed while one of distlock's threads waits on a socket that will never answer:
 * the database backend is loaded by a class loader of its own, as a server loads an application's, and
 * closed with a statement hung on a cut link (the answer grace a minute, so that no bound but the close
 * can end the wait). Closing must end every thread of the backend's, and nothing of the application may
 * be left reachable: its class loader is collected.
 */
@Timeout(120)
class UndeployWithAHungSocketTest {

    private static final Pattern HOST_AND_PORT = Pattern.compile("//([^:/]+):(\\d+)/");
    private static final String TABLE = TestDatabases.uniqueTable("distlock_undeploy");

    @Test
    void closingEndsEveryThreadAndLetsTheApplicationsClassesGo() throws Exception {
        Matcher url = HOST_AND_PORT.matcher(Database.POSTGRESQL.url());
        assertTrue(url.find(), "a PostgreSQL URL with host and port");
        try (PartitionProxy link = new PartitionProxy(url.group(1), Integer.parseInt(url.group(2)));
             OpenedConnections pool = new OpenedConnections(2, TestDatabases.dataSourceFor(
                     HOST_AND_PORT.matcher(Database.POSTGRESQL.url()).replaceFirst("//127.0.0.1:" + link.port() + "/")))) {
            boolean[] callerAnswered = {false};
            WeakReference<ClassLoader> application = deployUseAndUndeploy(pool, link, callerAnswered);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (application.get() != null && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(100);
            }
            String figures = "after close, with a socket hung: the caller answered " + callerAnswered[0] + ", threads of the backend's alive "
                    + backendThreads().size() + ", the application's class loader collected " + (application.get() == null);
            System.out.println("[undeploy] " + figures);
            assertTrue(callerAnswered[0], figures);
            assertEquals(List.of(), backendThreads(), figures);
            assertNull(application.get(), figures);
        } finally {
            TestDatabases.dropTable(Database.POSTGRESQL.dataSource(), TABLE);
            TestDatabases.dropTable(Database.POSTGRESQL.dataSource(), TABLE + "_name");
        }
    }

    /** Loads the backend in a loader of its own, hangs a statement on the cut link, closes it: the loader, weakly. */
    private static WeakReference<ClassLoader> deployUseAndUndeploy(DataSource pool, PartitionProxy link, boolean[] callerAnswered)
            throws Exception {
        ClassLoader application = new ApplicationLoader();
        Class<?> backendClass = application.loadClass(JdbcBackend.class.getName());
        assertTrue(backendClass.getClassLoader() == application, "the backend is the application's own");
        Constructor<?> constructor = backendClass.getConstructor(DataSource.class, String.class, long.class, long.class);
        Object backend = constructor.newInstance(pool, TABLE, 3_000L, 60_000L);
        Class<?> spi = application.loadClass(LockBackend.class.getName());
        spi.getMethod("problem").invoke(backend); // the tables made: the link works

        link.cut();
        CompletableFuture<Object> hung = CompletableFuture.supplyAsync(() -> {
            try {
                return spi.getMethod("problem").invoke(backend);
            } catch (ReflectiveOperationException e) {
                return e;
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (backendThreads().stream().noneMatch(thread -> isReadingASocket(thread)) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(backendThreads().stream().anyMatch(UndeployWithAHungSocketTest::isReadingASocket),
                "a thread of the backend waits on the cut link");

        spi.getMethod("close").invoke(backend);
        try {
            hung.get(10, TimeUnit.SECONDS);
            callerAnswered[0] = true;
        } catch (java.util.concurrent.TimeoutException stillWaiting) {
            hung.cancel(true);
        }
        long ended = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!backendThreads().isEmpty() && System.nanoTime() < ended) {
            Thread.sleep(50);
        }
        return new WeakReference<>(application);
    }

    private static boolean isReadingASocket(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().contains("Socket") || frame.getClassName().contains("NioSocketImpl")) {
                return true;
            }
        }
        return false;
    }

    private static List<Thread> backendThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("distlock-jdbc") && thread.isAlive())
                .toList();
    }

    /** distlock's classes from the same places as the tests', loaded by this loader first, as a server's application loader does. */
    private static final class ApplicationLoader extends URLClassLoader {
        ApplicationLoader() {
            super(new URL[] {
                    JdbcBackend.class.getProtectionDomain().getCodeSource().getLocation(),
                    LockBackend.class.getProtectionDomain().getCodeSource().getLocation()
            }, UndeployWithAHungSocketTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null && name.startsWith("dev.distlock.") && !name.startsWith("dev.distlock.testing.")) {
                    try {
                        loaded = findClass(name);
                    } catch (ClassNotFoundException notTheApplications) {
                        // a test's class: the parent's
                    }
                }
                if (loaded == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }
}
