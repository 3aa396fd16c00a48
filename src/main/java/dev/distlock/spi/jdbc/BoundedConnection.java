package dev.distlock.spi.jdbc;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executor;

/**
 * A connection on which no wait outlasts a bound: every read from the socket ({@link
 * Connection#setNetworkTimeout}: a half-open socket, a server that stopped answering, a row another
 * transaction keeps locked), or where the driver or pool has no network timeout every statement made
 * on it ({@link Statement#setQueryTimeout}, in whole seconds).
 * Without them one such wait pins a thread of distlock's for as long as the socket stays up, which on
 * a dead link is for ever. Closing it restores the network timeout the pool's connection had and gives
 * the connection back.
 *
 * <p>{@link #abort()} ends the connection from another thread, which frees a thread blocked on its
 * socket at once: how closing distlock ends its threads, even with a socket hung. Internal.
 */
public final class BoundedConnection implements AutoCloseable {

    /** Where drivers run a network timeout's abort: on the thread that notices it. */
    private static final Executor ON_THE_SPOT = Runnable::run;

    private final Connection connection;
    private final Connection bounded;
    private final Integer networkTimeoutBefore;
    private volatile boolean ended;

    private BoundedConnection(Connection connection, int timeoutMillis) {
        this.connection = connection;
        this.networkTimeoutBefore = setNetworkTimeout(connection, timeoutMillis);
        // Where the socket is bounded, so is every wait: a statement waiting for a row leaves the socket
        // silent too. Statements are bounded only where it is not, since a driver's statement timeout
        // may cost a thread of its own (PostgreSQL's timer, which keeps the class loader of whoever made
        // it first for as long as the pool keeps that connection) and a cancel sent over a new
        // connection, on the link that may be the one that died.
        this.bounded = networkTimeoutBefore != null ? connection
                : (Connection) Proxy.newProxyInstance(BoundedConnection.class.getClassLoader(), new Class<?>[] {Connection.class},
                        new SettingQueryTimeouts(connection, (int) Math.min(Integer.MAX_VALUE, (timeoutMillis + 999L) / 1000)));
    }

    /** A connection from {@code dataSource} with every wait bounded by {@code timeoutMillis}. */
    public static BoundedConnection open(DataSource dataSource, long timeoutMillis) throws SQLException {
        if (timeoutMillis <= 0) {
            throw new IllegalArgumentException("a connection's bound must be > 0 ms, was " + timeoutMillis);
        }
        Connection connection = dataSource.getConnection();
        try {
            return new BoundedConnection(connection, (int) Math.min(Integer.MAX_VALUE, timeoutMillis));
        } catch (RuntimeException e) {
            closeQuietly(connection, e);
            throw e;
        }
    }

    /** The connection to use; statements made on it carry the bound. */
    public Connection connection() {
        return bounded;
    }

    /** Ends the connection now, from any thread; a thread blocked on it gets an error. */
    public void abort() {
        ended = true;
        try {
            connection.abort(ON_THE_SPOT);
        } catch (SQLException | RuntimeException | AbstractMethodError e) {
            closeQuietly(connection, null);
        }
    }

    /** Whether it was closed or aborted. */
    public boolean isClosed() {
        return ended;
    }

    @Override
    public void close() throws SQLException {
        if (ended) {
            connection.close(); // aborted: the pool learns it is gone
            return;
        }
        ended = true;
        try {
            if (networkTimeoutBefore != null && !connection.isClosed()) {
                connection.setNetworkTimeout(ON_THE_SPOT, networkTimeoutBefore);
            }
        } catch (SQLException | RuntimeException | AbstractMethodError e) {
            // The pool checks or replaces a connection it cannot reset.
        } finally {
            connection.close();
        }
    }

    /**
     * The network timeout set, returning the one before; {@code null} where the driver or pool has
     * none (statements are still bounded, and {@link #abort()} still frees a blocked thread).
     */
    private static Integer setNetworkTimeout(Connection connection, int timeoutMillis) {
        try {
            int before = connection.getNetworkTimeout();
            connection.setNetworkTimeout(ON_THE_SPOT, timeoutMillis);
            return before;
        } catch (SQLException | UnsupportedOperationException | AbstractMethodError e) {
            return null;
        }
    }

    private static void closeQuietly(Connection connection, Exception cause) {
        try {
            connection.close();
        } catch (SQLException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            }
        }
    }

    /** Sets the query timeout on every statement the connection makes; everything else passes through. */
    private record SettingQueryTimeouts(Connection connection, int seconds) implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] arguments) throws Throwable {
            Object result;
            try {
                result = method.invoke(connection, arguments);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (result instanceof Statement statement) {
                statement.setQueryTimeout(seconds);
            }
            return result;
        }
    }
}
