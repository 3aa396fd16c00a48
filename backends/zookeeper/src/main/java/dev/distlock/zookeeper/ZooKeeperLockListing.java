package dev.distlock.zookeeper;

import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.spi.NodeName;
import dev.distlock.spi.StoredLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The locks held under a name prefix, for {@code LockBackend.inspect}: each lock is a node under the
 * root whose children are the recipe's ephemeral sequential nodes ({@code ..__WRIT__0000000007},
 * {@code ..__READ__0000000008}). As the recipe grants: the lowest node holds if it is a writer's,
 * otherwise every reader's node below the first writer's does. A holder is named by its session
 * ({@code 0x<session id>:<sequence>}), and its server by the node's data, which the backend sets to
 * the server's name as it creates the node (Curator's default, the host's address, for a node made
 * otherwise); a lease is its session's, so no time is given.
 */
final class ZooKeeperLockListing {

    private static final String WRITER = "__WRIT__";
    private static final String READER = "__READ__";

    private ZooKeeperLockListing() {
    }

    static List<StoredLock> list(CuratorFramework client, String root, String namePrefix, int limit) {
        String encodedPrefix = NodeNames.encode(namePrefix);
        try {
            long ourSession = client.getZookeeperClient().getZooKeeper().getSessionId();
            List<String> names = new ArrayList<>();
            for (String child : client.getChildren().forPath(root)) {
                if (child.startsWith(encodedPrefix)) {
                    names.add(child);
                }
            }
            names.sort(Comparator.naturalOrder());
            List<StoredLock> locks = new ArrayList<>();
            for (String encoded : names) {
                if (locks.size() == limit) {
                    break;
                }
                StoredLock lock = read(client, root + "/" + encoded, NodeNames.decode(encoded), ourSession);
                if (lock != null) {
                    locks.add(lock);
                }
            }
            return locks;
        } catch (Exception e) {
            throw new LockServiceUnavailableException("Could not list the locks under '" + namePrefix + "' in ZooKeeper: " + e, e);
        }
    }

    /** {@code null} when nobody holds it (its nodes are gone, or it is not a lock). */
    private static StoredLock read(CuratorFramework client, String path, String name, long ourSession) throws Exception {
        List<Holding> holding = holding(client, path);
        if (holding.isEmpty()) {
            return null;
        }
        List<StoredLock.Holder> holders = new ArrayList<>();
        boolean ours = false;
        for (Holding held : holding) {
            holders.add(held.holder());
            ours |= held.stat().getEphemeralOwner() == ourSession;
        }
        LockMode mode = holding.get(0).node().contains(WRITER) ? LockMode.EXCLUSIVE : LockMode.READ;
        return new StoredLock(name, mode, holders, ours, StoredLock.NO_EXPIRY);
    }

    /**
     * Deletes the nodes that hold the lock at {@code path} (waiting nodes keep their place), for
     * {@code LockBackend.forceRelease}: the waiters watching them are told, the holders' checks find
     * their node gone.
     *
     * @return the holders ended, named as {@link #list} names them
     * @throws IllegalStateException when {@code onlyIfFenced} and someone holds it: ZooKeeper does not
     *                               record whether a holder took its fencing token
     */
    static List<StoredLock.Holder> end(CuratorFramework client, String path, String name, boolean onlyIfFenced) {
        try {
            List<Holding> holding = holding(client, path);
            if (!holding.isEmpty() && onlyIfFenced) {
                throw new IllegalStateException("ZooKeeper does not record whether the holder of lock '" + name
                        + "' took it with a fencing token; it was left held (end it with an acknowledged reason)");
            }
            List<StoredLock.Holder> ended = new ArrayList<>();
            for (Holding held : holding) {
                try {
                    client.delete().withVersion(held.stat().getVersion()).forPath(path + "/" + held.node());
                    ended.add(held.holder());
                } catch (KeeperException.NoNodeException released) {
                    // released meanwhile
                }
            }
            return ended;
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new LockServiceUnavailableException("Could not end lock '" + name + "' in ZooKeeper: " + e, e);
        }
    }

    /** A node that holds a lock, as the recipe grants, and its data. */
    private record Holding(String node, Stat stat, byte[] data) {
        StoredLock.Holder holder() {
            return StoredLock.Holder.of("0x" + Long.toHexString(stat.getEphemeralOwner()) + ":" + sequence(node), server(data));
        }
    }

    /** The server's name a lock node holds; null when it holds none that could be one. */
    static String server(byte[] data) {
        if (data == null || data.length == 0) {
            return null;
        }
        String text = new String(data, StandardCharsets.UTF_8);
        try {
            return NodeName.check(text);
        } catch (IllegalArgumentException notAName) {
            return null;
        }
    }

    /** The lowest node if it is a writer's, else every reader's node below the first writer's; those still there. */
    private static List<Holding> holding(CuratorFramework client, String path) throws Exception {
        List<String> nodes = new ArrayList<>();
        try {
            for (String node : client.getChildren().forPath(path)) {
                if (node.contains(WRITER) || node.contains(READER)) {
                    nodes.add(node);
                }
            }
        } catch (KeeperException.NoNodeException gone) {
            return List.of();
        }
        nodes.sort(Comparator.comparing(ZooKeeperLockListing::sequence));
        List<Holding> holding = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            String node = nodes.get(i);
            if (node.contains(WRITER) && i > 0) {
                break;
            }
            Stat stat = new Stat();
            try {
                byte[] data = client.getData().storingStatIn(stat).forPath(path + "/" + node);
                holding.add(new Holding(node, stat, data));
            } catch (KeeperException.NoNodeException released) {
                // released meanwhile
            }
            if (node.contains(WRITER)) {
                break;
            }
        }
        return holding;
    }

    private static String sequence(String node) {
        return node.substring(Math.max(0, node.length() - 10));
    }
}
