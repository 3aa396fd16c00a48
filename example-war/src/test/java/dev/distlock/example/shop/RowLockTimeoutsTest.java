package dev.distlock.example.shop;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A real H2 row-lock wait that times out is told from other failures. */
class RowLockTimeoutsTest {

    @Test
    void aRowHeldByAnotherTransactionPastTheLockTimeoutIsRecognised() throws SQLException {
        String url = "jdbc:h2:mem:row-lock-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=100";
        try (Connection holder = DriverManager.getConnection(url, "sa", "");
             Connection waiter = DriverManager.getConnection(url, "sa", "")) {
            try (Statement setup = holder.createStatement()) {
                setup.execute("CREATE TABLE stock(sku VARCHAR(20) PRIMARY KEY, units INT)");
                setup.execute("INSERT INTO stock VALUES ('MUG', 10)");
            }
            holder.setAutoCommit(false);
            try (Statement write = holder.createStatement()) {
                write.executeUpdate("UPDATE stock SET units = 9 WHERE sku = 'MUG'");
            }
            SQLException timedOut = assertThrows(SQLException.class, () -> {
                try (Statement write = waiter.createStatement()) {
                    write.executeUpdate("UPDATE stock SET units = 8 WHERE sku = 'MUG'");
                }
            });
            assertTrue(RowLockTimeouts.causedBy(new RuntimeException("wrapped as JPA would", timedOut)), timedOut::toString);
            holder.rollback();

            SQLException syntax = assertThrows(SQLException.class, () -> {
                try (Statement wrong = waiter.createStatement()) {
                    wrong.executeUpdate("UPDATE nowhere SET units = 1");
                }
            });
            assertFalse(RowLockTimeouts.causedBy(syntax), syntax::toString);
            assertFalse(RowLockTimeouts.causedBy(new IllegalStateException("no SQL in it")));
        }
    }
}
