package dev.distlock.internal.cdi;

import dev.distlock.testing.IdTestDatabase;

import dev.distlock.id.DailySerial;
import dev.distlock.id.DailySerials;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code @Inject @GeneratedId DailySerials} against a real Redis and H2, configured as a user
 * would, and the deployments that must fail, with a message naming what to change.
 */
class DailySerialsInjectionTest {

    @Dependent
    public static class Invoices {
        @Inject @GeneratedId("invoice") DailySerials numbers;
        @Inject @GeneratedId("invoice") DailySerials sameNumbers;
    }

    @Dependent
    public static class InvoiceIds {
        @Inject @GeneratedId("invoice") IdGenerator ids;
    }

    @Dependent
    public static class SnowflakeSerials {
        @Inject @GeneratedId(value = "ticket", strategy = IdStrategy.SNOWFLAKE) DailySerials numbers;
    }

    @Dependent
    public static class SerialIds {
        @Inject @GeneratedId(value = "ticket", strategy = IdStrategy.DAILY_SERIAL) IdGenerator ids;
    }

    private final String prefix = TestRedis.uniquePrefix("serial-inject");
    private final String database = IdTestDatabase.uniqueUrl("serial-inject");

    @Test
    void numbersFollowTheConfiguredFormatAndZoneAndShareOneSequencePerName() throws Exception {
        Map<String, String> config = Map.of(
                "distlock.id.invoice.format", "INV-{date:yyyy-MM-dd}/{serial:4}",
                "distlock.id.invoice.zone", "Pacific/Kiritimati",
                "distlock.id.invoice.step", "7");
        try (DistlockWeld weld = start(config, Invoices.class)) {
            Invoices invoices = weld.bean(Invoices.class);
            assertSame(invoices.numbers, invoices.sameNumbers, "one generator per name");
            Set<String> texts = new HashSet<>();
            DailySerial first = invoices.numbers.next();
            texts.add(first.text());
            for (int i = 0; i < 49; i++) {
                assertTrue(texts.add(invoices.numbers.next().text()));
            }
            // UTC+14: the day there is today or tomorrow in UTC, never UTC's yesterday.
            LocalDate kiritimati = LocalDate.now(ZoneId.of("Pacific/Kiritimati"));
            assertTrue(!first.day().isBefore(kiritimati.minusDays(1)) && !first.day().isAfter(kiritimati), first.toString());
            assertEquals("INV-" + first.day() + "/" + String.format("%04d", first.serial()), first.text());
            assertEquals(1, first.serial(), "a new generator's first number of the day");
            // Ranges of 7 leased per day: 50 numbers took 8 leases; the row holds the high-water mark.
            assertEquals(56, highWater(weld, "invoice@" + first.day()));
        }
    }

    @Test
    void aNameInjectedBothAsSerialsAndAsIdsFailsTheDeployment() {
        String message = deploymentFailure(Map.of(), Invoices.class, InvoiceIds.class);
        assertMentions(message, "@GeneratedId(\"invoice\")", "DailySerials", "one name is one generator");
    }

    @Test
    void serialsWithAnotherStrategyFailTheDeployment() {
        assertMentions(deploymentFailure(Map.of(), SnowflakeSerials.class), "@GeneratedId(\"ticket\") DailySerials", "SNOWFLAKE",
                "always DAILY_SERIAL");
        assertMentions(deploymentFailure(Map.of(), SerialIds.class), "@GeneratedId(\"ticket\")", "DAILY_SERIAL", "not a long",
                "inject dev.distlock.id.DailySerials");
        assertMentions(deploymentFailure(Map.of("distlock.id.invoice.strategy", "SEGMENT"), Invoices.class),
                "distlock.id.invoice.strategy", "always DAILY_SERIAL");
    }

    @Test
    void badFormatsZonesAndStepsFailTheDeployment() {
        assertMentions(deploymentFailure(Map.of("distlock.id.invoice.format", "{date:MM-dd}-{serial}"), Invoices.class),
                "distlock.id.invoice.format={date:MM-dd}-{serial}", "'invoice'", "would repeat");
        assertMentions(deploymentFailure(Map.of("distlock.id.invoice.format", "{date:d}.{serial:3}"), Invoices.class),
                "changes its width");
        assertMentions(deploymentFailure(Map.of("distlock.id.invoice.format", "{date:yyyyMMdd}"), Invoices.class),
                "needs a {date:...} part and a {serial} part");
        assertMentions(deploymentFailure(Map.of("distlock.id.invoice.zone", "Europe/Berln"), Invoices.class),
                "distlock.id.invoice.zone=Europe/Berln", "Europe/Berln");
        assertMentions(deploymentFailure(Map.of("distlock.id.invoice.step", "0"), Invoices.class),
                "distlock.id.invoice.step", "between 1 and 1000000");
    }

    private static long highWater(DistlockWeld weld, String row) throws Exception {
        try (Connection connection = weld.bean(DataSource.class).getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT max_id FROM distlock_id_segment WHERE name = ?")) {
            select.setString(1, row);
            try (ResultSet result = select.executeQuery()) {
                assertTrue(result.next(), "a row for " + row);
                return result.getLong(1);
            }
        }
    }

    private DistlockWeld start(Map<String, String> extra, Class<?>... beans) {
        return IdTestDatabase.startWeld(prefix, database, extra, beans);
    }

    private String deploymentFailure(Map<String, String> config, Class<?>... beans) {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> start(config, beans).close(),
                "the deployment should have failed");
        return DistlockWeld.messages(failure);
    }

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected '" + part + "' in:\n" + message);
        }
    }
}
