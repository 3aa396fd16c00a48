package dev.distlock.zookeeper;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.spi.LockPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.zookeeper.data.Stat;

import java.util.concurrent.TimeUnit;

/**
 * One acquisition through Curator's lock recipe, for a {@link ZooKeeperBackend}: a recipe instance
 * of its own, used once, the node it created and, for a fenced lock, that node's creation id as the
 * token. Apart from the backend because the recipe keeps its node per thread: all of this runs on
 * the acquiring thread, and only the {@link Taken} it returns leaves it.
 */
final class RecipeAcquisition {

    /** What an acquisition took: the lock node, the session that created it, the token (0 unfenced). */
    record Taken(String node, long sessionId, long token) {
    }

    private RecipeAcquisition() {
    }

    /**
     * Takes the lock at {@code path}, waiting until {@code deadlineNanos} unless the policy waits for ever.
     *
     * @return what was taken; {@code null} when the wait ran out
     * @throws LockServiceUnavailableException naming {@code name} when ZooKeeper failed; a node taken is deleted
     */
    static Taken take(ZooKeeperBackend backend, String path, byte[] nodeData, String name, LockPolicy policy,
                      long deadlineNanos) throws InterruptedException {
        CuratorFramework client = backend.client();
        InterProcessReadWriteLock recipe = new InterProcessReadWriteLock(client, path, nodeData);
        InterProcessMutex lock = switch (policy.mode()) {
            case READ -> recipe.readLock();
            case EXCLUSIVE, WRITE -> recipe.writeLock();
        };
        String node;
        try {
            boolean acquired;
            if (policy.waitsForever()) {
                lock.acquire();
                acquired = true;
            } else {
                long remaining = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
                acquired = lock.acquire(remaining, TimeUnit.MILLISECONDS);
            }
            if (!acquired) {
                return null;
            }
            // Only the thread that acquired can read it (the recipe keeps it per thread).
            node = lockPath(lock);
        } catch (InterruptedException e) {
            throw e; // the recipe removed its node
        } catch (Exception e) {
            throw unavailable("acquire", name, e);
        }
        long sessionId;
        long token = 0;
        try {
            sessionId = backend.currentSession();
            if (policy.fenced()) {
                Stat stat = client.checkExists().forPath(node);
                if (stat == null || stat.getEphemeralOwner() != sessionId) {
                    throw new LockServiceUnavailableException("Lock '" + name + "' vanished from ZooKeeper right after it "
                            + "was acquired (the session expired?); the method did not run.", null);
                }
                token = stat.getCzxid();
            }
        } catch (LockServiceUnavailableException e) {
            throw e;
        } catch (Exception e) {
            backend.deleteQuietly(node);
            throw unavailable("acquire", name, e);
        }
        return new Taken(node, sessionId, token);
    }

    private static String lockPath(InterProcessMutex lock) {
        if (lock instanceof InterProcessReadWriteLock.WriteLock write) {
            return write.getLockPath();
        }
        return ((InterProcessReadWriteLock.ReadLock) lock).getLockPath();
    }

    private static LockServiceUnavailableException unavailable(String action, String name, Exception cause) {
        return new LockServiceUnavailableException("Could not " + action + " lock '" + name + "': ZooKeeper failed ("
                + cause + "); the method did not run.", cause);
    }
}
