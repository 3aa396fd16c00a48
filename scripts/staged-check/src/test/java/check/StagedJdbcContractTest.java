package check;

import dev.distlock.jdbc.JdbcBackend;
import dev.distlock.spi.LockBackend;
import dev.distlock.testkit.backend.LockBackendContract;
import org.h2.jdbcx.JdbcDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The published contract suite (distlock's test kit) run on the staged distlock-jdbc, in H2. */
class StagedJdbcContractTest extends LockBackendContract {

    private static final String TABLE = "staged_lock";

    private final JdbcDataSource database = new JdbcDataSource();

    StagedJdbcContractTest() {
        database.setURL("jdbc:h2:mem:staged-contract;DB_CLOSE_DELAY=-1");
    }

    @Override
    protected LockBackend connect() {
        return new JdbcBackend(database, TABLE, 3_000, 5_000);
    }

    @Override
    protected void lose(String name) throws SQLException {
        try (Connection connection = database.getConnection();
             PreparedStatement delete = connection.prepareStatement("DELETE FROM " + TABLE + " WHERE name = ?")) {
            delete.setString(1, name);
            delete.executeUpdate();
        }
    }
}
