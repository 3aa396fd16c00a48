package dev.distlock.zookeeper;

import dev.distlock.DistributedLocks;
import dev.distlock.internal.core.EngineBuilder;
import dev.distlock.testkit.Waits;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What stays in ZooKeeper after many distinct names were each locked once: a lock's node is its
 * holder's ephemeral node, and the name's node above it is a container node, which the server
 * deletes once it is empty (every {@code znode.container.checkIntervalMs}; 60 s by default, 1 s
 * here). Fencing tokens are the lock nodes' creation transaction ids, which keep rising however
 * often a name's node is made again, so nothing needs to stay.
 */
class ZooKeeperKeyspaceIT {

    private static final int NAMES = 2_000;
    private static final int HELD = 3;

    @Test
    void whatStaysIsBoundedByWhatIsHeldNow() throws Exception {
        String previous = System.setProperty("znode.container.checkIntervalMs", "1000");
        try (TestingServer server = new TestingServer(true);
             CuratorFramework admin = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100))) {
            admin.start();
            DistributedLocks locks = new EngineBuilder().keyPrefix("keyspace")
                    .build(ZooKeeperBackend.connect(server.getConnectString(), "/keyspace", 10_000, 5_000, 5_000));
            try {
                for (int i = 0; i < NAMES; i++) {
                    DistributedLocks.LockCall call = locks.exclusive("name:" + i);
                    (i % 2 == 0 ? call.fenced() : call).run(() -> { });
                }
                int rightAfter = children(admin);
                java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
                java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(HELD);
                for (int i = 0; i < HELD; i++) {
                    String key = "held-" + i;
                    Thread holder = new Thread(() -> locks.exclusive(key).fenced().run(() -> {
                        holding.countDown();
                        try {
                            done.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }));
                    holder.start();
                }
                assertTrue(holding.await(30, java.util.concurrent.TimeUnit.SECONDS), "the held locks were taken");
                boolean shrank = Waits.until(60_000, () -> children(admin) <= HELD);
                int after = children(admin);
                done.countDown();
                System.out.printf("[keyspace] ZooKeeper: %,d names locked once (half fenced): name nodes right after %,d, "
                        + "once the server swept its empty containers %d (held now: %d)%n", NAMES, rightAfter, after, HELD);
                assertTrue(shrank, "name nodes left " + after + " with " + HELD + " held");
            } finally {
                locks.close();
            }
        } finally {
            if (previous == null) {
                System.clearProperty("znode.container.checkIntervalMs");
            } else {
                System.setProperty("znode.container.checkIntervalMs", previous);
            }
        }
    }

    private static int children(CuratorFramework admin) {
        try {
            return admin.getChildren().forPath("/keyspace").size();
        } catch (org.apache.zookeeper.KeeperException.NoNodeException containerGoneToo) {
            return 0;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
