package dev.distlock.bench;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps a {@link DataSource} so that every SQL statement executed through it ({@code execute*} on
 * a statement) and every {@code commit} / {@code rollback} is counted: the calls that are a round
 * trip to a database server. Used to report the SQL cost of the segment store's leases.
 */
final class JdbcCallCounter {

    private final AtomicLong calls = new AtomicLong();

    /** Statements executed plus commits and rollbacks so far. */
    long calls() {
        return calls.get();
    }

    DataSource wrap(DataSource target) {
        return (DataSource) proxy(DataSource.class, target);
    }

    /** A proxy of {@code type} over {@code target} that counts round trips and wraps the connections and statements it hands out. */
    private Object proxy(Class<?> type, Object target) {
        InvocationHandler handler = (self, method, args) -> {
            String name = method.getName();
            boolean roundTrip = (target instanceof Statement && name.startsWith("execute"))
                    || (target instanceof Connection && (name.equals("commit") || name.equals("rollback")));
            if (roundTrip) {
                calls.incrementAndGet();
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            Class<?> returned = method.getReturnType();
            if (result != null && (returned == Connection.class || Statement.class.isAssignableFrom(returned))) {
                return proxy(returned, result);
            }
            return result;
        };
        return Proxy.newProxyInstance(JdbcCallCounter.class.getClassLoader(), new Class<?>[] {type}, handler);
    }
}
