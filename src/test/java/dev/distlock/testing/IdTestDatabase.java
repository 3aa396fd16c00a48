package dev.distlock.testing;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.config.ConfigProvider;
import org.h2.jdbcx.JdbcDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The application's {@link DataSource} bean, as a user would produce it: an in-memory H2 database
 * whose URL the test puts in configuration under {@value #URL_KEY}, so that tests never share one.
 * Weld SE has no JNDI, so this bean is how segment generators find their database.
 */
@ApplicationScoped
public class IdTestDatabase {

    public static final String URL_KEY = "test.h2.url";

    @Produces
    @ApplicationScoped
    DataSource dataSource() {
        return dataSource(ConfigProvider.getConfig().getValue(URL_KEY, String.class));
    }

    /**
     * A container with distlock, the test Redis's client and this database at {@code url}, keys
     * under {@code keyPrefix}, more configuration from {@code extra}, and {@code beans}.
     */
    public static DistlockWeld startWeld(String keyPrefix, String url, Map<String, String> extra, Class<?>... beans) {
        Map<String, String> config = new HashMap<>(Map.of("distlock.key-prefix", keyPrefix, URL_KEY, url));
        config.putAll(extra);
        Class<?>[] all = new Class<?>[beans.length + 2];
        all[0] = TestRedisClient.class;
        all[1] = IdTestDatabase.class;
        System.arraycopy(beans, 0, all, 2, beans.length);
        return DistlockWeld.start(config, all);
    }

    /** A database nobody else uses; it lives until the JVM exits. */
    public static String uniqueUrl(String test) {
        return "jdbc:h2:mem:" + test + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    public static DataSource dataSource(String url) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(url);
        return dataSource;
    }

    /** The high-water mark the segment table holds for {@code name}; empty if it has no row. */
    public static OptionalLong maxId(String url, String name) throws SQLException {
        try (Connection connection = dataSource(url).getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT max_id FROM distlock_id_segment WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? OptionalLong.of(row.getLong(1)) : OptionalLong.empty();
            }
        }
    }
}
