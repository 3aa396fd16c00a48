package dev.distlock.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.CreateBuilder;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Curator client whose next create made by a lock recipe succeeds in ZooKeeper while the client is
 * told the connection was lost: Curator's own seam for this case ({@code CreateBuilderImpl}'s
 * {@code failNextCreateForTesting}, with which Curator's tests check its protected mode), set on the
 * create builder that the recipe asks for. Everything else passes through to the client; ZooKeeper
 * itself is real.
 */
final class LostCreateAnswers {

    private static final Field FAIL_NEXT_CREATE = failNextCreate();

    private final CuratorFramework client;
    private final AtomicBoolean armed = new AtomicBoolean(true);
    private volatile CreateBuilder lostOn;

    /** Over {@code client}; the next create of a lock recipe made through {@link #client()} loses its answer. */
    LostCreateAnswers(CuratorFramework client) {
        this.client = client;
    }

    private static Field failNextCreate() {
        try {
            Field field = Class.forName("org.apache.curator.framework.imps.CreateBuilderImpl").getDeclaredField("failNextCreateForTesting");
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this Curator has no failNextCreateForTesting to lose a create's answer with", e);
        }
    }

    /** The client to give the backend. */
    CuratorFramework client() {
        return (CuratorFramework) Proxy.newProxyInstance(LostCreateAnswers.class.getClassLoader(), new Class<?>[] {CuratorFramework.class},
                new Passing(client));
    }

    /** Whether ZooKeeper created the node and the client was told the connection was lost instead. */
    boolean createLost() {
        CreateBuilder builder = lostOn;
        try {
            return builder != null && !FAIL_NEXT_CREATE.getBoolean(builder);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object call(Object target, Method method, Object[] arguments) throws Throwable {
        try {
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The client as given; the recipes' own view of it ({@code newWatcherRemoveCuratorFramework}) loses the next create's answer. */
    private final class Passing implements InvocationHandler {
        private final CuratorFramework target;

        Passing(CuratorFramework target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] arguments) throws Throwable {
            Object result = call(target, method, arguments);
            if (method.getName().equals("newWatcherRemoveCuratorFramework")) {
                return Proxy.newProxyInstance(LostCreateAnswers.class.getClassLoader(),
                        new Class<?>[] {WatcherRemoveCuratorFramework.class}, new Passing((CuratorFramework) result));
            }
            if (method.getName().equals("create") && result instanceof CreateBuilder builder
                    && target instanceof WatcherRemoveCuratorFramework && armed.compareAndSet(true, false)) {
                FAIL_NEXT_CREATE.setBoolean(builder, true);
                lostOn = builder;
            }
            return result;
        }
    }
}
