package dev.distlock.jdbc;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * A data source over a real database whose connection breaks at the moment of the next grant it
 * carries, as a link that drops then does (SQLState {@value #CONNECTION_FAILURE}): a pure wrapper,
 * the database behind it decides and commits as it always does. A grant is the statement that
 * inserts a holder's row into {@code table}; in a transaction (H2, MariaDB) the moment is its commit,
 * in auto-commit mode (PostgreSQL) the statement itself, which commits as it runs. After the break
 * every call on that connection fails as on a dead one, but its close, which gives the real
 * connection back.
 */
final class LostGrantAnswers implements DataSource {

    /** What the database cannot tell the driver about: "connection failure". */
    static final String CONNECTION_FAILURE = "08006";

    /** Where the link breaks. */
    enum Break {
        /** The database commits the grant; its answer is lost on the way back. */
        AFTER_COMMIT,
        /** The commit never reaches the database (in auto-commit mode: the grant's statement never does). */
        BEFORE_COMMIT,
        /** The statement that inserts the holder never reaches the database; nothing is committed. */
        AT_THE_INSERT,
        /** Nothing breaks: the answer only comes late (after the delay). */
        NONE
    }

    private record Armed(Break at, long delayMillis) {
    }

    private static final Set<String> STILL_WORKING_WHEN_BROKEN = Set.of("close", "isClosed", "abort", "toString", "hashCode", "equals");

    private final DataSource database;
    private final String insertHolder;
    private final AtomicReference<Armed> armed = new AtomicReference<>();
    private final AtomicInteger committedThenLost = new AtomicInteger();
    private final AtomicInteger broken = new AtomicInteger();

    /** Over {@code database}, whose lock table is {@code table}; nothing armed yet. */
    LostGrantAnswers(DataSource database, String table) {
        this.database = database;
        this.insertHolder = "INSERT INTO " + table + " (";
    }

    /**
     * The next grant made through this data source breaks at {@code at}, its answer {@code delayMillis}
     * late: in a transaction the commit reaches the database that much later, in auto-commit mode the
     * answer of the statement, which the database has run.
     */
    LostGrantAnswers arm(Break at, long delayMillis) {
        armed.set(new Armed(at, delayMillis));
        return this;
    }

    /** The next grant's answer is lost after the database committed it. */
    LostGrantAnswers armAfterCommit() {
        return arm(Break.AFTER_COMMIT, 0);
    }

    /** Grants the database committed and whose answer was then lost. */
    int committedThenLost() {
        return committedThenLost.get();
    }

    /** Connections broken so far. */
    int broken() {
        return broken.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(database.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(database.getConnection(username, password));
    }

    private Connection wrap(Connection real) {
        return (Connection) Proxy.newProxyInstance(LostGrantAnswers.class.getClassLoader(), new Class<?>[] {Connection.class},
                new OnConnection(real));
    }

    private static SQLException connectionFailure(String what) {
        return new SQLException("connection failure (test): the link broke " + what, CONNECTION_FAILURE);
    }

    private static Object call(Object target, Method method, Object[] arguments) throws Throwable {
        try {
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static void pause(long millis) {
        if (millis > 0) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One connection: passes every call through until its grant, then behaves as a dead one. */
    private final class OnConnection implements InvocationHandler {
        private final Connection real;
        /** The break this connection's grant is to suffer, once the grant's statement was prepared on it. */
        private volatile Armed grant;
        private volatile boolean dead;

        OnConnection(Connection real) {
            this.real = real;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] arguments) throws Throwable {
            String name = method.getName();
            if (dead && !STILL_WORKING_WHEN_BROKEN.contains(name)) {
                throw connectionFailure("earlier: " + name + " on a dead connection");
            }
            if (grant != null && name.equals("commit")) {
                commit(grant);
                return null;
            }
            Object result = call(real, method, arguments);
            if (name.equals("prepareStatement") && ((String) arguments[0]).contains(insertHolder)) {
                Armed taken = armed.getAndSet(null);
                if (taken != null) {
                    grant = taken;
                    return Proxy.newProxyInstance(LostGrantAnswers.class.getClassLoader(), new Class<?>[] {PreparedStatement.class},
                            new OnGrant((PreparedStatement) result, taken));
                }
            }
            return result;
        }

        private void commit(Armed at) throws SQLException {
            grant = null;
            pause(at.delayMillis());
            switch (at.at()) {
                case AFTER_COMMIT -> {
                    real.commit();
                    committedThenLost.incrementAndGet();
                    throw die("after the database committed the grant");
                }
                case BEFORE_COMMIT -> {
                    real.rollback();
                    throw die("before the commit reached the database");
                }
                default -> real.commit();
            }
        }

        private SQLException die(String what) {
            dead = true;
            broken.incrementAndGet();
            return connectionFailure(what);
        }

        /** The grant's statement: in auto-commit mode it is the commit. */
        private final class OnGrant implements InvocationHandler {
            private final PreparedStatement statement;
            private final Armed at;

            OnGrant(PreparedStatement statement, Armed at) {
                this.statement = statement;
                this.at = at;
            }

            @Override
            public Object invoke(Object proxy, Method method, Object[] arguments) throws Throwable {
                if (!method.getName().startsWith("execute")) {
                    return call(statement, method, arguments);
                }
                boolean autoCommit = real.getAutoCommit();
                if (at.at() == Break.AT_THE_INSERT || (autoCommit && at.at() == Break.BEFORE_COMMIT)) {
                    grant = null;
                    pause(at.delayMillis());
                    if (!autoCommit) {
                        real.rollback();
                    }
                    throw die("before the grant's statement reached the database");
                }
                if (!autoCommit) {
                    return call(statement, method, arguments); // the commit decides
                }
                grant = null;
                Object result = call(statement, method, arguments);
                pause(at.delayMillis());
                if (at.at() == Break.NONE) {
                    return result;
                }
                if (result instanceof ResultSet row && granted(row)) {
                    committedThenLost.incrementAndGet();
                }
                throw die("after the database committed the grant's statement");
            }

            /** PostgreSQL's grant answers its token, or null where it granted nothing. */
            private boolean granted(ResultSet row) throws SQLException {
                try (row) {
                    if (!row.next()) {
                        return false;
                    }
                    row.getLong(1);
                    return !row.wasNull();
                }
            }
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return database.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        database.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        database.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return database.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return database.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return database.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return database.isWrapperFor(type);
    }
}
