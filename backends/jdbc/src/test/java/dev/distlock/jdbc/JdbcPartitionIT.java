package dev.distlock.jdbc;

import dev.distlock.spi.LockBackend;
import dev.distlock.testkit.backend.PartitionContract;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * The partition against the lock table, kept in a database of its own (an H2 server in this JVM,
 * over TCP) apart from the database the work writes to: node A reaches the lock database only
 * through the cuttable link and still reaches the other one. A cut-off holder's lock is its row,
 * which another node may take over once the row's lease (1 s here) has passed without a renewal.
 */
class JdbcPartitionIT extends PartitionContract {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final String DATABASE = "mem:partition-locks-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private static Server server;

    @BeforeAll
    static void startServer() throws SQLException {
        server = Server.createTcpServer("-tcpPort", "0", "-tcpAllowOthers", "-ifNotExists").start();
    }

    @AfterAll
    static void stopServer() {
        server.stop();
    }

    @Override
    protected int storePort() {
        return server.getPort();
    }

    @Override
    protected LockBackend connect(String host, int port, long answerGraceMillis) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:tcp://" + host + ":" + port + "/" + DATABASE);
        dataSource.setUser("sa");
        return new JdbcBackend(dataSource, "distlock_partition", LEASE.toMillis(), answerGraceMillis);
    }

    @Override
    protected Duration lease() {
        return LEASE;
    }
}
