package dev.distlock.jdbc;

import dev.distlock.LockMode;
import dev.distlock.OnTimeout;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The database's "now", by which every lease is written and judged, is the instant itself whatever
 * time zone the session is in. On MariaDB/MySQL a local time read in the session's zone is ambiguous
 * for the hour that repeats when summer time ends: read that way, "now" falls an hour behind for the
 * whole repeated hour and then jumps an hour ahead, and every lease written in that hour looks ended
 * at once. The servers are real; the sessions are set to Berlin's zone and, on MariaDB, to chosen
 * instants around 2024-10-27 01:00 UTC (03:00 CEST became 02:00 CET).
 */
class DatabaseClockIsUtcTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    /** 02:00 CEST, the first instant of the hour Berlin's clocks show twice. */
    private static final Instant FALL_BACK = Instant.parse("2024-10-27T01:00:00Z");

    private final String table = TestDatabases.uniqueTable("distlock_clock");
    private final List<Runnable> cleanups = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        cleanups.forEach(Runnable::run);
    }

    @Test
    void mariaDbReadsTheInstantThroughTheRepeatedHour() throws Exception {
        SessionClock berlin = SessionClock.inZone(mariaDb(), BERLIN, FALL_BACK);
        LockTables tables = LockTables.open(berlin, table, 5_000);
        for (String instant : List.of("2024-10-27T00:30:00Z", "2024-10-27T00:59:59.999Z", "2024-10-27T01:00:00Z",
                "2024-10-27T01:30:00.250Z", "2024-10-27T01:59:59.999Z", "2024-10-27T02:00:00Z", "2024-10-27T02:30:00Z")) {
            berlin.set(Instant.parse(instant));
            try (Connection connection = berlin.getConnection()) {
                assertEquals(Instant.parse(instant), Instant.ofEpochMilli(tables.now(connection)),
                        "the database's now in a Berlin session at " + instant);
            }
        }
    }

    @Test
    void aLeaseTakenInTheRepeatedHourStillHoldsAfterIt() throws Exception {
        SessionClock berlin = SessionClock.inZone(mariaDb(), BERLIN, Instant.parse("2024-10-27T01:59:50Z"));
        JdbcBackend first = backend(berlin);
        JdbcBackend second = backend(berlin);
        LockPolicy thirtySeconds = new LockPolicy("clock test", LockMode.EXCLUSIVE, 0, 30_000, OnTimeout.FAIL);
        BackendLease held = first.acquire("stock", thirtySeconds, System.nanoTime() + 5_000_000_000L);
        assertNotNull(held, "the first node takes the lock at 01:59:50 UTC, in the repeated hour");

        berlin.set(Instant.parse("2024-10-27T02:00:05Z"));
        BackendLease alsoHeld = second.acquire("stock", thirtySeconds, System.nanoTime());
        assertNull(alsoHeld, "15 s later, with 15 s of the first node's 30 s lease left, a second node was granted the lock");
    }

    @Test
    void postgresAndH2ReadTheInstantInABerlinSession() throws Exception {
        for (Database database : List.of(Database.H2, Database.POSTGRESQL)) {
            if (!database.available()) {
                continue;
            }
            DataSource source = database.dataSource();
            LockTables tables = LockTables.open(source, table, 5_000);
            cleanups.add(() -> drop(source));
            try (Connection connection = source.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("SET TIME ZONE 'Europe/Berlin'");
                long before = System.currentTimeMillis();
                long now = tables.now(connection);
                long after = System.currentTimeMillis();
                assertTrue(now >= before - 2_000 && now <= after + 2_000,
                        database + " in a Berlin session: now " + Instant.ofEpochMilli(now) + ", the instant " + Instant.ofEpochMilli(before));
            }
        }
    }

    private DataSource mariaDb() {
        DataSource source = Database.MARIADB.dataSource();
        cleanups.add(() -> drop(source));
        return source;
    }

    private JdbcBackend backend(DataSource source) {
        JdbcBackend backend = new JdbcBackend(source, table, 3_000, 5_000);
        cleanups.add(0, backend::close);
        return backend;
    }

    private void drop(DataSource source) {
        try {
            TestDatabases.dropTable(source, table);
            TestDatabases.dropTable(source, table + "_name");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
