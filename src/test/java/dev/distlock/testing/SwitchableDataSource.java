package dev.distlock.testing;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * A real data source that a test can take down, as a database outage would: {@code getConnection}
 * then fails. Notes which threads asked for connections.
 */
public final class SwitchableDataSource implements DataSource {

    public static final String DOWN_MESSAGE = "the database is down (test outage)";

    private final DataSource delegate;
    private volatile boolean down;
    private final AtomicInteger refused = new AtomicInteger();
    private final Set<Thread> callers = ConcurrentHashMap.newKeySet();

    public SwitchableDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    public void down() {
        down = true;
    }

    public void up() {
        down = false;
    }

    /** How many connections were refused while down. */
    public int refused() {
        return refused.get();
    }

    /** The threads that asked for a connection. */
    public Set<Thread> callers() {
        return Set.copyOf(callers);
    }

    @Override
    public Connection getConnection() throws SQLException {
        callers.add(Thread.currentThread());
        if (down) {
            refused.incrementAndGet();
            throw new SQLTransientConnectionException(DOWN_MESSAGE, "08001");
        }
        return delegate.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("distlock asks for connections without credentials");
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return delegate.isWrapperFor(iface);
    }
}
