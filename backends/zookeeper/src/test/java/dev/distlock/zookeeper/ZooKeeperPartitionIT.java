package dev.distlock.zookeeper;

import dev.distlock.spi.LockBackend;
import dev.distlock.testkit.backend.PartitionContract;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/**
 * The partition against ZooKeeper (Curator's test server, in this JVM): node A's session reaches the
 * server only through the cuttable link. A cut-off holder's lock is its session's ephemeral node,
 * which the server deletes once the session has heard nothing for its timeout (2 s here; the server
 * ticks every 500 ms so that it grants a timeout that short).
 */
class ZooKeeperPartitionIT extends PartitionContract {

    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(2);
    private static TestingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1);
        server = new TestingServer(spec, true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Override
    protected int storePort() {
        return server.getPort();
    }

    @Override
    protected LockBackend connect(String host, int port, long answerGraceMillis) {
        return ZooKeeperBackend.connect(host + ":" + port, "/distlock-partition", SESSION_TIMEOUT.toMillis(), 1_000, answerGraceMillis);
    }

    @Override
    protected Duration lease() {
        return SESSION_TIMEOUT;
    }
}
