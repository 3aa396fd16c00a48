package dev.distlock.testing;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real data source that a test can take down, as a database outage would: {@code getConnection}
 * then fails. Notes which threads asked for connections.
 */
public final class SwitchableDataSource extends DelegatingDataSource {

    public static final String DOWN_MESSAGE = "the database is down (test outage)";

    private volatile boolean down;
    private final AtomicInteger refused = new AtomicInteger();
    private final Set<Thread> callers = ConcurrentHashMap.newKeySet();

    public SwitchableDataSource(DataSource delegate) {
        super(delegate);
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
}
