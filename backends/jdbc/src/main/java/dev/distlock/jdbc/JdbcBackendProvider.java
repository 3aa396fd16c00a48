package dev.distlock.jdbc;

import dev.distlock.LockDefinitionException;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockBackendProvider;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code distlock.backend=jdbc}: locks as rows of {@code distlock.jdbc.table} in the application's
 * database. The DataSource is {@code distlock.jdbc.datasource} (a JNDI name) if set, otherwise the
 * application's DataSource bean if it has exactly one, otherwise {@value #DEFAULT_DATASOURCE}.
 */
public final class JdbcBackendProvider implements LockBackendProvider {

    static final String PREFIX = "distlock.jdbc.";
    static final String DEFAULT_DATASOURCE = "java:comp/DefaultDataSource";
    private static final Duration SHORTEST_LEASE = Duration.ofMillis(300);

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public Configured configure(Settings settings) {
        Optional<String> jndiName = settings.value(PREFIX + "datasource");
        String table = settings.value(PREFIX + "table").orElse(JdbcBackend.DEFAULT_TABLE);
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]{0,57}")) {
            throw new LockDefinitionException("Config " + PREFIX + "table=" + table
                    + ": must be a plain SQL identifier (letters, digits, _; at most 58 characters)");
        }
        Duration lease = settings.duration(PREFIX + "lease-timeout", Duration.ofMillis(JdbcBackend.DEFAULT_LEASE_MILLIS));
        if (lease.compareTo(SHORTEST_LEASE) < 0) {
            throw new LockDefinitionException("Config " + PREFIX + "lease-timeout=" + lease.toMillis()
                    + " ms: must be at least " + SHORTEST_LEASE.toMillis() + " ms");
        }
        Duration nameExpiry = settings.duration(PREFIX + "name-expiry", Duration.ofMillis(JdbcBackend.DEFAULT_NAME_EXPIRY_MILLIS));
        if (nameExpiry.toMillis() < 1_000) {
            throw new LockDefinitionException("Config " + PREFIX + "name-expiry=" + nameExpiry.toMillis() + " ms: must be at least 1000 ms");
        }
                long grace = settings.answerGrace().toMillis();
        return new Configured() {
            @Override
            public String describe() {
                return "the database (" + jndiName.orElse("the application's DataSource") + ", table " + table + ")";
            }

            @Override
            public LockBackend start(Beans beans) {
                return new JdbcBackend(() -> dataSource(jndiName, beans), table, lease.toMillis(), grace, nameExpiry.toMillis());
            }
        };
    }

    /**
     * Looked up by the first locked call, on its thread: on Payara a {@code java:app} name cannot be
     * looked up while the application starts, nor on distlock's own threads.
     */
    private static DataSource dataSource(Optional<String> jndiName, Beans beans) {
        if (jndiName.isEmpty()) {
            Optional<DataSource> bean = beans.bean(DataSource.class);
            if (bean.isPresent()) {
                return bean.get();
            }
        }
        String name = jndiName.orElse(DEFAULT_DATASOURCE);
        try {
            return (DataSource) new InitialContext().lookup(name);
        } catch (NamingException | RuntimeException e) {
            throw new IllegalStateException("distlock.backend=jdbc needs a DataSource, but " + name
                    + " cannot be looked up (" + e.getClass().getSimpleName() + "). Set distlock.jdbc.datasource to the "
                    + "JNDI name of one, or produce a javax.sql.DataSource bean.");
        }
    }
}
