package dev.distlock.zookeeper;

import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.spi.StoredLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The locks held under a name prefix, for {@code LockBackend.inspect}: each lock is a node under the
 * root whose children are the recipe's ephemeral sequential nodes ({@code ..__WRIT__0000000007},
 * {@code ..__READ__0000000008}). As the recipe grants: the lowest node holds if it is a writer's,
 * otherwise every reader's node below the first writer's does. A holder is named by its session
 * ({@code 0x<session id>:<sequence>}); a lease is its session's, so no time is given.
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
                StoredLock lock = read(client, root + "/" + encoded, decode(encoded), ourSession);
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
        List<String> nodes = new ArrayList<>();
        try {
            for (String node : client.getChildren().forPath(path)) {
                if (node.contains(WRITER) || node.contains(READER)) {
                    nodes.add(node);
                }
            }
        } catch (KeeperException.NoNodeException gone) {
            return null;
        }
        nodes.sort(Comparator.comparing(ZooKeeperLockListing::sequence));
        List<String> holding = new ArrayList<>();
        for (String node : nodes) {
            if (node.contains(WRITER)) {
                if (holding.isEmpty()) {
                    holding.add(node);
                }
                break;
            }
            holding.add(node);
        }
        List<String> holders = new ArrayList<>();
        boolean ours = false;
        for (String node : holding) {
            Stat stat = client.checkExists().forPath(path + "/" + node);
            if (stat == null) {
                continue; // released meanwhile
            }
            holders.add("0x" + Long.toHexString(stat.getEphemeralOwner()) + ":" + sequence(node));
            ours |= stat.getEphemeralOwner() == ourSession;
        }
        if (holders.isEmpty()) {
            return null;
        }
        LockMode mode = holding.get(0).contains(WRITER) ? LockMode.EXCLUSIVE : LockMode.READ;
        return new StoredLock(name, mode, holders, ours, StoredLock.NO_EXPIRY);
    }

    private static String sequence(String node) {
        return node.substring(Math.max(0, node.length() - 10));
    }

    /** The inverse of {@link NodeNames#encode}. */
    static String decode(String encoded) {
        if (encoded.indexOf('%') < 0) {
            return encoded;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%' && i + 2 < encoded.length()) {
                bytes.write(Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
