package dev.distlock.zookeeper;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.spi.BackendLease;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

import java.util.concurrent.CompletableFuture;

/** One lock node of a {@link ZooKeeperBackend}, created by the session {@code sessionId}. */
final class ZooKeeperLease implements BackendLease {

    private final ZooKeeperBackend backend;
    private final CuratorFramework client;
    private final String name;
    private final String node;
    private final long sessionId;
    private final boolean renewed;
    private final long token;
    /** The session that created the node ended. */
    private volatile boolean lost;

    ZooKeeperLease(ZooKeeperBackend backend, String name, String node, long sessionId, boolean renewed, long token) {
        this.backend = backend;
        this.client = backend.client();
        this.name = name;
        this.node = node;
        this.sessionId = sessionId;
        this.renewed = renewed;
        this.token = token;
    }

    @Override
    public long fencingToken() {
        return token;
    }

    @Override
    public boolean renewed() {
        return renewed;
    }

    /** The session ended: ZooKeeper deletes (or has deleted) the node. */
    void lose() {
        lost = true;
    }

    @Override
    public CompletableFuture<Boolean> isHeld() {
        if (lost || backend.currentSession() != sessionId) {
            // After an expiry the old session's node lingers until the server ends that session, and
            // nothing keeps it alive any more: a hold of a session the client no longer has is lost.
            lost = true;
            return CompletableFuture.completedFuture(false);
        }
        if (backend.isSuspended()) {
            return CompletableFuture.failedFuture(new LockServiceUnavailableException(
                    "The connection to ZooKeeper is suspended: lock '" + name + "' cannot be confirmed", null));
        }
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        try {
            // Still this session's node: a node of a session that ended is not ours any more.
            client.checkExists().inBackground((c, event) -> answer(answer, event.getResultCode(),
                    event.getStat() != null && event.getStat().getEphemeralOwner() == sessionId)).forPath(node);
        } catch (Exception e) {
            answer.completeExceptionally(e);
        }
        return answer;
    }

    @Override
    public CompletableFuture<Boolean> release() {
        backend.forget(this);
        if (lost) {
            return CompletableFuture.completedFuture(false);
        }
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        try {
            // Guaranteed: if the connection fails, Curator keeps deleting until the node is gone.
            client.delete().guaranteed().inBackground((c, event) -> answer(answer, event.getResultCode(), true)).forPath(node);
        } catch (Exception e) {
            answer.completeExceptionally(e);
        }
        return answer;
    }

    /** {@code ifFound} when the call found the node, {@code false} when there is none, a failure otherwise. */
    private void answer(CompletableFuture<Boolean> answer, int resultCode, boolean ifFound) {
        KeeperException.Code code = KeeperException.Code.get(resultCode);
        if (code == KeeperException.Code.OK) {
            answer.complete(ifFound);
        } else if (code == KeeperException.Code.NONODE) {
            answer.complete(false);
        } else {
            answer.completeExceptionally(KeeperException.create(code, node));
        }
    }

    /** A fixed lease ran out while held: the node goes, as a Redis key's TTL would. */
    void endFixedLease() {
        if (backend.isHeld(this)) {
            backend.deleteQuietly(node);
        }
    }
}
