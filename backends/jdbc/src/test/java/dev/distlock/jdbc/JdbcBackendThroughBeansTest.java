package dev.distlock.jdbc;

import dev.distlock.testing.IdTestDatabase;

import dev.distlock.internal.cdi.observability.LockStoreReadiness;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.Stock;
import dev.distlock.testkit.Ports;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code distlock.backend=jdbc}: the same annotations, locks held as rows in the application's
 * database (its DataSource bean), Redis never asked, readiness {@code distlock-jdbc}, bad settings
 * failing the deployment with the key and the value.
 */
@Timeout(60)
class JdbcBackendThroughBeansTest {

    private static Map<String, String> jdbc(String url) {
        Map<String, String> config = new HashMap<>();
        config.put("distlock.backend", "jdbc");
        config.put(IdTestDatabase.URL_KEY, url);
        config.put("distlock.redis.address", "redis://127.0.0.1:" + Ports.free()); // nobody there: must not matter
        return config;
    }

    @Test
    void lockedMethodsHoldRowsInTheApplicationsDatabase() throws Exception {
        String url = IdTestDatabase.uniqueUrl("jdbc-backend");
        Map<String, String> config = jdbc(url);
        config.put("distlock.jdbc.table", "app_locks");
        try (DistlockWeld weld = DistlockWeld.start(config, Stock.class, IdTestDatabase.class)) {
            Stock stock = weld.bean(Stock.class);
            List<String> held = stock.reserve("A", () -> rows(url, "SELECT name, mode FROM app_locks"));
            assertEquals(List.of("distlock:lock:stock:A X"), held);
            assertEquals(List.of(), rows(url, "SELECT name, mode FROM app_locks"), "released after the call");
            assertEquals(List.of("distlock:rw:catalog X"), stock.reprice(() -> rows(url, "SELECT name, mode FROM app_locks")));

            HealthCheckResponse ready = weld.container().select(LockStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
            assertEquals("distlock-jdbc", ready.getName());
            assertEquals(HealthCheckResponse.Status.UP, ready.getStatus(), String.valueOf(ready.getData()));
        }
    }

    @Test
    void badSettingsFailTheDeploymentNamingKeyAndValue() {
        String url = IdTestDatabase.uniqueUrl("jdbc-bad");
        assertDeploymentFails(with(url, "distlock.jdbc.table", "locks; DROP TABLE x"), "distlock.jdbc.table=locks; DROP TABLE x");
        assertDeploymentFails(with(url, "distlock.jdbc.lease-timeout", "PT0.1S"), "distlock.jdbc.lease-timeout=100 ms");
        assertDeploymentFails(with(url, "distlock.jdbc.lease-timeout", "later"), "distlock.jdbc.lease-timeout=later");
        assertDeploymentFails(Map.of("distlock.backend", "JDBC2"), "must be redis, zookeeper, jdbc or in-memory");
    }

    @Test
    void aDataSourceThatCannotBeFoundFailsLockedCallsAndReadinessNamingIt() {
        Map<String, String> config = jdbc(IdTestDatabase.uniqueUrl("jdbc-jndi"));
        config.put("distlock.jdbc.datasource", "java:app/jdbc/nope");
        // Weld SE has no JNDI: the lookup fails as it would for a name the server does not know. It is
        // made by the first locked call, on its thread (on Payara, java:app is not there at start).
        try (DistlockWeld weld = DistlockWeld.start(config, Stock.class, IdTestDatabase.class)) {
            int[] ran = {0};
            Exception refused = assertThrows(Exception.class, () -> weld.bean(Stock.class).reserve("A", () -> ran[0]++));
            String messages = DistlockWeld.messages(refused);
            assertTrue(messages.contains("distlock.backend=jdbc needs a DataSource, but java:app/jdbc/nope cannot be looked up"),
                    messages);
            assertEquals(0, ran[0], "the method ran without its lock");
            HealthCheckResponse ready = weld.container().select(LockStoreReadiness.class, Readiness.Literal.INSTANCE).get().call();
            assertEquals(HealthCheckResponse.Status.DOWN, ready.getStatus());
            assertTrue(ready.getData().orElseThrow().get("error").toString().contains("java:app/jdbc/nope"), ready.getData().toString());
        }
    }

    private static Map<String, String> with(String url, String key, String value) {
        Map<String, String> config = jdbc(url);
        config.put(key, value);
        return config;
    }

    private static void assertDeploymentFails(Map<String, String> config, String expected) {
        Exception failure = assertThrows(Exception.class, () -> DistlockWeld.start(config, Stock.class, IdTestDatabase.class).close());
        String messages = DistlockWeld.messages(failure);
        assertTrue(messages.contains(expected), "expected '" + expected + "' in: " + messages);
    }

    private static List<String> rows(String url, String sql) throws SQLException {
        try (Connection connection = IdTestDatabase.dataSource(url).getConnection();
             Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
            List<String> rows = new ArrayList<>();
            while (row.next()) {
                rows.add(row.getString(1) + " " + row.getString(2));
            }
            return rows;
        }
    }
}
