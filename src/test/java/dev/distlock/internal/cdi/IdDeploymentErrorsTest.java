package dev.distlock.internal.cdi;

import dev.distlock.testing.IdTestDatabase;

import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.testing.DistlockWeld;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An invalid id generator fails the deployment, and the message names the generator and says
 * what to change. None of these deployments reaches Redis or a database.
 */
class IdDeploymentErrorsTest {

    @Dependent
    public static class Orders {
        @Inject @GeneratedId("order") IdGenerator ids;
    }

    @Dependent
    public static class Invoices {
        @Inject @GeneratedId(value = "invoice", strategy = IdStrategy.SEGMENT) IdGenerator ids;
    }

    @Dependent
    public static class BadlyNamed {
        @Inject @GeneratedId("order number") IdGenerator ids;
    }

    @Dependent
    public static class SnowflakeReceipts {
        @Inject @GeneratedId(value = "receipt", strategy = IdStrategy.SNOWFLAKE) IdGenerator ids;
    }

    @Dependent
    public static class SegmentReceipts {
        @Inject @GeneratedId(value = "receipt", strategy = IdStrategy.SEGMENT) IdGenerator ids;
    }

    @Dependent
    public static class SecondDatabase {
        @Produces
        DataSource reporting() {
            return IdTestDatabase.dataSource(IdTestDatabase.uniqueUrl("id-errors-second"));
        }
    }

    @Test
    void anUnknownStrategyFailsTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.id.order.strategy", "UUID"), Orders.class);
        assertMentions(message, "distlock.id.order.strategy=UUID", "'order'", "SNOWFLAKE or SEGMENT");
    }

    @Test
    void aNegativeStepFailsTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.id.invoice.step", "-5"), Invoices.class);
        assertMentions(message, "Config distlock.id.invoice.step ", "'invoice'", "1 <= min-step <= step <= max-step");
    }

    @Test
    void aWorkerIdOutsideTheWorkerBitsFailsTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.id.order.worker-id", "5000"), Orders.class);
        assertMentions(message, "distlock.id.order.worker-id", "'order'", "10 worker bits", "0 to 1023", "auto");
    }

    @Test
    void anUnknownClockFloorFailsTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.id.order.worker-id", "7", "distlock.id.order.clock-floor", "file"), Orders.class);
        assertMentions(message, "distlock.id.order.clock-floor=file", "'order'", "redis", "none");
    }

    @Test
    void bitsThatDoNotAddUpTo63FailTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.id.order.time-bits", "42"), Orders.class);
        assertMentions(message, "Config distlock.id.order.time-bits ", "'order'", "must be 63", "42 + 10 + 12 = 64");
    }

    @Test
    void aLayoutThatHasRunOutFailsTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.id.order.epoch", "1900-01-01T00:00:00Z",
                "distlock.id.order.time-bits", "41"), Orders.class);
        assertMentions(message, "'order'", "ran out", "distlock.id.order.epoch later or add time bits");
    }

    @Test
    void aSegmentGeneratorWithoutADataSourceFailsTheDeployment() {
        String message = deploymentFailure(Map.of(), Invoices.class);
        assertMentions(message, "'invoice'", "java:comp/DefaultDataSource", "distlock.id.invoice.datasource",
                "javax.sql.DataSource bean");
    }

    @Test
    void aConfiguredJndiNameThatCannotBeLookedUpFailsTheDeployment() {
        // A DataSource bean exists, but the configured JNDI name wins and cannot be found.
        String message = deploymentFailure(Map.of("distlock.id.invoice.datasource", "jdbc/orders",
                IdTestDatabase.URL_KEY, IdTestDatabase.uniqueUrl("id-errors")), Invoices.class, IdTestDatabase.class);
        assertMentions(message, "'invoice'", "jdbc/orders", "distlock.id.invoice.datasource");
    }

    /**
     * The application's own JNDI names are bound by some servers (Payara) only after CDI started:
     * looked up when the generator is first injected, and a name that is missing then fails that.
     */
    @Test
    void anApplicationsOwnJndiNameIsLookedUpWhenTheGeneratorIsFirstInjected() {
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.id.invoice.datasource", "java:app/jdbc/orders"), Invoices.class)) {
            RuntimeException failure = assertThrows(RuntimeException.class, () -> weld.bean(Invoices.class).ids.nextId());
            assertMentions(DistlockWeld.messages(failure), "'invoice'", "java:app/jdbc/orders", "distlock.id.invoice.datasource");
        }
    }

    @Test
    void twoDataSourceBeansAndNoJndiFailTheDeployment() {
        // Two beans: distlock cannot choose, so it falls back to JNDI, which Weld SE does not have.
        String message = deploymentFailure(Map.of(IdTestDatabase.URL_KEY, IdTestDatabase.uniqueUrl("id-errors")),
                Invoices.class, IdTestDatabase.class, SecondDatabase.class);
        assertMentions(message, "'invoice'", "2 DataSource beans", "java:comp/DefaultDataSource", "distlock.id.invoice.datasource");
    }

    @Test
    void aTableNameThatIsNoPlainIdentifierFailsTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.id.table", "ids; drop table orders",
                IdTestDatabase.URL_KEY, IdTestDatabase.uniqueUrl("id-errors")), Invoices.class, IdTestDatabase.class);
        assertMentions(message, "distlock.id.table=ids; drop table orders", "'invoice'", "plain SQL identifier");
    }

    @Test
    void aTableNameWithNoRoomForItsSpareTableFailsTheDeployment() {
        String table = "t".repeat(58);
        String message = deploymentFailure(Map.of("distlock.id.table", table,
                IdTestDatabase.URL_KEY, IdTestDatabase.uniqueUrl("id-errors")), Invoices.class, IdTestDatabase.class);
        assertMentions(message, "distlock.id.table=" + table, "at most 57 characters", "<table>_spare");
    }

    @Test
    void anInvalidGeneratorNameFailsTheDeployment() {
        String message = deploymentFailure(Map.of(), BadlyNamed.class);
        assertMentions(message, "@GeneratedId(\"order number\")", "letters, digits, '.', '_' or '-'");
    }

    @Test
    void twoInjectionPointsOfOneNameAskingForDifferentStrategiesFailTheDeployment() {
        String message = deploymentFailure(Map.of(), SnowflakeReceipts.class, SegmentReceipts.class);
        assertMentions(message, "@GeneratedId(\"receipt\")", "SNOWFLAKE", "SEGMENT", "one name is one generator");
    }

    @Test
    void aNonNumericValueFailsTheDeployment() {
        String message = deploymentFailure(Map.of("distlock.id.order.worker-bits", "ten"), Orders.class);
        assertMentions(message, "distlock.id.order.worker-bits=ten", "'order'", "not a whole number");
    }

    @Test
    void anInvalidGlobalSettingFailsTheDeploymentOfEveryGeneratorItReaches() {
        String message = deploymentFailure(Map.of("distlock.id.max-clock-backward", "PT1H"), Orders.class);
        assertMentions(message, "Config distlock.id.max-clock-backward ", "'order'", "between 0 and 5000 ms");
    }

    @Test
    void configuredIsNoStrategyToConfigure() {
        String message = deploymentFailure(Map.of("distlock.id.order.strategy", "CONFIGURED"), Orders.class);
        assertMentions(message, "distlock.id.order.strategy=CONFIGURED", "'order'", "SNOWFLAKE or SEGMENT");
    }

    /** Starts a container that must fail; returns every message in the failure's causes. */
    private static String deploymentFailure(Map<String, String> config, Class<?>... beans) {
        Map<String, String> properties = new HashMap<>(config);
        RuntimeException failure = assertThrows(RuntimeException.class, () -> DistlockWeld.start(properties, beans).close(),
                "the deployment should have failed");
        return DistlockWeld.messages(failure);
    }

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected '" + part + "' in:\n" + message);
        }
    }
}
