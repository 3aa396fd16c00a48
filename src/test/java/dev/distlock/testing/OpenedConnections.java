package dev.distlock.testing;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * A pool of connections opened ahead, as a server's pool holds them: a connection taken is one
 * already open (its socket may have died since), and one given back goes to the end of the line. A
 * connection that was aborted or that failed on its socket leaves the pool. Tests choose which
 * connection is handed out next ({@link #nextOut}), so that a given thread of distlock's gets the one
 * whose link was cut.
 */
public final class OpenedConnections implements DataSource, AutoCloseable {

    private final LinkedBlockingDeque<Connection> idle = new LinkedBlockingDeque<>();
    private final List<Connection> opened = new ArrayList<>();

    /** Opens {@code count} connections from each of {@code sources}, in turn. */
    public OpenedConnections(int count, DataSource... sources) throws SQLException {
        for (int i = 0; i < count; i++) {
            for (DataSource source : sources) {
                Connection connection = source.getConnection();
                opened.add(connection);
                idle.addLast(connection);
            }
        }
    }

    /** The connections opened, in the order they were. */
    public List<Connection> opened() {
        return List.copyOf(opened);
    }

    /** {@code connection} is handed out next, if it is idle. */
    public void nextOut(Connection connection) {
        if (idle.remove(connection)) {
            idle.addFirst(connection);
        }
    }

    /** How many connections are idle now. */
    public int idle() {
        return idle.size();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection physical;
        try {
            physical = idle.pollFirst(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for a pooled connection", e);
        }
        if (physical == null) {
            throw new SQLException("no pooled connection was given back within 2 s");
        }
        return lent(physical);
    }

    private Connection lent(Connection physical) {
        boolean[] returned = {false};
        return (Connection) Proxy.newProxyInstance(OpenedConnections.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, arguments) -> {
                    switch (method.getName()) {
                        case "close" -> {
                            if (!returned[0]) {
                                returned[0] = true;
                                if (!physical.isClosed()) {
                                    idle.addLast(physical);
                                }
                            }
                            return null;
                        }
                        case "isClosed" -> {
                            return returned[0] || physical.isClosed();
                        }
                        case "abort" -> returned[0] = true;
                        default -> {
                        }
                    }
                    try {
                        return method.invoke(physical, arguments);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public void close() {
        for (Connection connection : opened) {
            try {
                connection.abort(Runnable::run);
            } catch (SQLException | RuntimeException e) {
                // gone already
            }
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("a pool of connections opened ahead");
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return false;
    }
}
