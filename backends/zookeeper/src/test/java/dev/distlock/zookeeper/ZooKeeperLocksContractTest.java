package dev.distlock.zookeeper;

import dev.distlock.DistributedLocks;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;

/**
 * The contract through {@link ZooKeeperLocks#builder(CuratorFramework)}, as an application without
 * CDI uses it: each engine over a Curator client the test makes, starts late (the builder starts
 * it) and closes itself, after the locks.
 */
class ZooKeeperLocksContractTest extends ZooKeeperBackendContractTest {

    private final List<CuratorFramework> clients = new ArrayList<>();

    @Override
    protected DistributedLocks.Builder builder() {
        CuratorFramework client = newClient(connectString());
        clients.add(client);
        return ZooKeeperLocks.builder(client);
    }

    @AfterEach
    void closeClients() {
        // Runs before the contract closes its engines: a closed client leaves them nothing to release.
        clients.forEach(CuratorFramework::close);
    }
}
