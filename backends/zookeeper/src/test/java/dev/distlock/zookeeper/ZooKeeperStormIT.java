package dev.distlock.zookeeper;

import dev.distlock.spi.LockBackend;
import dev.distlock.testkit.backend.BackendStorm;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Mutual exclusion across JVMs on ZooKeeper: two JVMs x 4 threads x 1,000 sections of one counter,
 * every increment kept. The twin without a lock is {@code DatabaseStormIT}'s.
 */
@Timeout(300)
class ZooKeeperStormIT {

    @Test
    void zooKeeperLocksLoseNoUpdateAcrossJvms() throws Exception {
        try (TestingServer server = new TestingServer(true)) {
            BackendStorm.runExact(Connector.class, server.getConnectString(), "/storm", 1_000);
        }
    }

    /** Connects the child JVM to the ensemble, under the root {@code where}. */
    public static final class Connector implements BackendStorm.Connector {
        @Override
        public LockBackend connect(String connection, String where) {
            return ZooKeeperBackend.connect(connection, where, 10_000, 5_000, 5_000);
        }
    }
}
