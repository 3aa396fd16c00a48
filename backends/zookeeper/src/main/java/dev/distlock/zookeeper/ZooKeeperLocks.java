package dev.distlock.zookeeper;

import dev.distlock.DistributedLocks;
import org.apache.curator.framework.CuratorFramework;

import java.util.Objects;

/**
 * Locks in ZooKeeper without CDI, through the application's Curator client: the same engine and
 * semantics as {@code distlock.backend=zookeeper}.
 *
 * <pre>{@code
 * DistributedLocks locks = ZooKeeperLocks.builder(curator).build();
 * locks.exclusive("stock:" + DistributedLocks.encode(sku)).run(() -> inventory.reserve(sku, 1));
 * }</pre>
 *
 * <p>The client is started if it is not yet, and stays the application's: closing the locks does
 * not close it (close the locks first). A hold counts as lost once the client's session could have
 * expired without it hearing: the session timeout the client negotiated with the ensemble.
 */
public final class ZooKeeperLocks {

    /** Where locks live unless another root is given. */
    public static final String DEFAULT_ROOT = ZooKeeperBackendProvider.DEFAULT_ROOT;

    private ZooKeeperLocks() {
    }

    /** Locks under {@value #DEFAULT_ROOT}. */
    public static DistributedLocks.Builder builder(CuratorFramework client) {
        return builder(client, DEFAULT_ROOT);
    }

    /**
     * Locks under {@code root}.
     *
     * @param root an absolute path without a trailing {@code /}, e.g. {@code /shop/locks}
     * @throws IllegalArgumentException naming the root when it is not such a path
     */
    public static DistributedLocks.Builder builder(CuratorFramework client, String root) {
        Objects.requireNonNull(client, "client");
        ZooKeeperBackend.checkRoot(root);
        return DistributedLocks.builder(answerGrace ->
                new ZooKeeperBackend(client, root, false, ZooKeeperBackend.NEGOTIATED, answerGrace.toMillis()));
    }
}
