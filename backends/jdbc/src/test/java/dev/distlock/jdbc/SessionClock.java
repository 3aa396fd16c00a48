package dev.distlock.jdbc;

import dev.distlock.testing.DelegatingDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;

/**
 * A MariaDB/MySQL data source whose every session lives in a given time zone and, until told
 * otherwise, at a given instant ({@code SET timestamp}): what a server in Berlin answers at a moment
 * a test chooses, such as the hour that repeats when summer time ends. The database is real; only the
 * session's clock and zone are set, as an application's own connection settings may set them.
 */
final class SessionClock extends DelegatingDataSource {

    private final String zone;
    private volatile Instant now;

    private SessionClock(DataSource database, String zone, Instant now) {
        super(database);
        this.zone = zone;
        this.now = now;
    }

    /**
     * Sessions in {@code zone}, loaded into the server's time zone tables from the JDK's rules for
     * 2023–2025 under a name of the tests' own (the servers here ship without time zone data).
     */
    static SessionClock inZone(DataSource database, ZoneId zone, Instant now) throws SQLException {
        return new SessionClock(database, loadZone(database, zone), now);
    }

    void set(Instant instant) {
        now = instant;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = delegate.getConnection();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET time_zone = '" + zone + "'");
            statement.execute("SET timestamp = " + now.getEpochSecond() + "." + String.format("%06d", now.getNano() / 1_000));
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    private static String loadZone(DataSource database, ZoneId zone) throws SQLException {
        String name = "distlock-test/" + zone.getId();
        try (Connection connection = database.getConnection()) {
            connection.setAutoCommit(true);
            try (PreparedStatement known = connection.prepareStatement("SELECT 1 FROM mysql.time_zone_name WHERE Name = ?")) {
                known.setString(1, name);
                try (ResultSet row = known.executeQuery()) {
                    if (row.next()) {
                        return name;
                    }
                }
            }
            long id;
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("INSERT INTO mysql.time_zone (Use_leap_seconds) VALUES ('N')", Statement.RETURN_GENERATED_KEYS);
                try (ResultSet key = statement.getGeneratedKeys()) {
                    key.next();
                    id = key.getLong(1);
                }
            }
            ZoneRules rules = zone.getRules();
            Instant from = Instant.parse("2023-01-01T00:00:00Z");
            insertType(connection, id, 0, rules.getStandardOffset(from).getTotalSeconds(), false);
            int type = 1;
            for (ZoneOffsetTransition t = rules.nextTransition(from); t != null
                    && t.getInstant().isBefore(Instant.parse("2026-01-01T00:00:00Z")); t = rules.nextTransition(t.getInstant())) {
                insertType(connection, id, type, t.getOffsetAfter().getTotalSeconds(), rules.isDaylightSavings(t.getInstant()));
                try (PreparedStatement transition = connection.prepareStatement(
                        "INSERT INTO mysql.time_zone_transition (Time_zone_id, Transition_time, Transition_type_id) VALUES (?, ?, ?)")) {
                    transition.setLong(1, id);
                    transition.setLong(2, t.getInstant().getEpochSecond());
                    transition.setInt(3, type++);
                    transition.executeUpdate();
                }
            }
            try (PreparedStatement named = connection.prepareStatement("INSERT INTO mysql.time_zone_name (Name, Time_zone_id) VALUES (?, ?)")) {
                named.setString(1, name);
                named.setLong(2, id);
                named.executeUpdate();
            }
        }
        return name;
    }

    private static void insertType(Connection connection, long zone, int type, int offsetSeconds, boolean summer) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO mysql.time_zone_transition_type "
                + "(Time_zone_id, Transition_type_id, `Offset`, Is_DST, Abbreviation) VALUES (?, ?, ?, ?, ?)")) {
            insert.setLong(1, zone);
            insert.setInt(2, type);
            insert.setInt(3, offsetSeconds);
            insert.setInt(4, summer ? 1 : 0);
            insert.setString(5, summer ? "S" : "W");
            insert.executeUpdate();
        }
    }
}
