package dev.distlock.internal.id;

import dev.distlock.testing.DelegatingDataSource;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real data source whose first {@code racers} DELETE statements wait for each other before they
 * run: every racer has read the row it is about to delete before any of them deletes it. The
 * interleaving a read-then-delete race needs, every time rather than by luck.
 */
final class RacingDeletes extends DelegatingDataSource {

    private static final long MEET_SECONDS = 10;

    private final CyclicBarrier meet;
    private final AtomicInteger toHold;

    RacingDeletes(DataSource delegate, int racers) {
        super(delegate);
        this.meet = new CyclicBarrier(racers);
        this.toHold = new AtomicInteger(racers);
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = delegate.getConnection();
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args[0] instanceof String sql
                            && sql.startsWith("DELETE") && toHold.getAndDecrement() > 0) {
                        meet.await(MEET_SECONDS, TimeUnit.SECONDS);
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
