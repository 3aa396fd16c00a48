package dev.distlock.zookeeper;

import dev.distlock.testkit.backend.LockBackendContract;
import dev.distlock.testkit.backend.LostGrantAnswer;

import dev.distlock.spi.LockBackend;

import dev.distlock.zookeeper.ZooKeeperBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract against ZooKeeper (Curator's test server, in this JVM): each connection a session of its own. */
class ZooKeeperBackendContractTest extends LockBackendContract {

    static final int SESSION_TIMEOUT_MILLIS = 10_000;
    private static TestingServer server;
    private static CuratorFramework admin;

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
        admin = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        admin.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        admin.close();
        server.close();
    }

    static CuratorFramework newClient(String connectString) {
        return CuratorFrameworkFactory.builder().connectString(connectString)
                .sessionTimeoutMs(SESSION_TIMEOUT_MILLIS).connectionTimeoutMs(5_000)
                .retryPolicy(new RetryOneTime(100)).build();
    }

    @Override
    protected LockBackend connect() {
        return new ZooKeeperBackend(newClient(server.getConnectString()), "/distlock", true, SESSION_TIMEOUT_MILLIS, 5_000);
    }

    /**
     * Through Curator's own seam for this case ({@link LostCreateAnswers}): ZooKeeper creates the
     * lock's node, and the client is told the connection was lost instead. On a client that retries
     * nothing, so that the answer is lost for good: one that retries finds its node again by the
     * protected name the recipe gives it, and holds the lock; one that cannot leaves Curator to
     * delete the node, in the background.
     */
    @Override
    protected LostGrantAnswer connectLosingTheAnswerToTheNextGrantOf(String name) {
        LostCreateAnswers answers = new LostCreateAnswers(CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(SESSION_TIMEOUT_MILLIS).connectionTimeoutMs(5_000).retryPolicy(new RetryNTimes(0, 0)).build());
        return new LostGrantAnswer(new ZooKeeperBackend(answers.client(), "/distlock", true, SESSION_TIMEOUT_MILLIS, 5_000),
                answers::createLost);
    }

    /** ZooKeeper does not record whether a holder took its token. */
    @Override
    protected boolean fencedHoldersAreTold() {
        return false;
    }

    static String connectString() {
        return server.getConnectString();
    }

    @Override
    protected void lose(String name) throws Exception {
        String path = "/distlock/" + NodeNames.encode(name);
        for (String child : admin.getChildren().forPath(path)) {
            try {
                admin.delete().forPath(path + "/" + child);
            } catch (KeeperException.NoNodeException gone) {
                // released meanwhile
            }
        }
    }
}
