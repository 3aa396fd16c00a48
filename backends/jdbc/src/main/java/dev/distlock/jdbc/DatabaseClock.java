package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * The database's time in milliseconds, in each dialect's words. Every lease is written and read in
 * this clock, never the JVM's: two JVMs with clocks apart agree on when a lease ends. Its own class
 * because each database says it differently, and one of them (MariaDB/MySQL) easily says it wrong.
 */
final class DatabaseClock {

    /** A query of one row and column: the time. */
    private final String nowSql;

    private DatabaseClock(String nowSql) {
        this.nowSql = nowSql;
    }

    /** The clock of the database {@code metaData} describes; refuses a database the backend does not support. */
    static DatabaseClock of(DatabaseMetaData metaData) throws SQLException {
        String product = metaData.getDatabaseProductName().toLowerCase(Locale.ROOT);
        if (product.contains("postgres")) {
            return new DatabaseClock("SELECT CAST(EXTRACT(EPOCH FROM CLOCK_TIMESTAMP()) * 1000 AS BIGINT)");
        }
        if (product.contains("mariadb") || product.contains("mysql")) {
            // Not UNIX_TIMESTAMP(NOW(3)): that reads a local time back through the session's zone, and the
            // hour a zone repeats when summer time ends is read as the hour before (now an hour behind, then
            // a jump ahead that ends every lease written meanwhile). UTC_TIMESTAMP has no zone to misread.
            return new DatabaseClock("SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(3)) DIV 1000");
        }
        if (product.contains("h2")) {
            return new DatabaseClock("SELECT CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)");
        }
        throw new SQLException("The database backend supports H2, PostgreSQL and MariaDB/MySQL; this database is "
                + metaData.getDatabaseProductName());
    }

    /** The database's time in milliseconds. */
    long now(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(nowSql)) {
            row.next();
            return row.getLong(1);
        }
    }

    /** The time as an SQL expression, for statements that compare with it where they run. */
    String expression() {
        return nowSql.substring("SELECT ".length());
    }
}
