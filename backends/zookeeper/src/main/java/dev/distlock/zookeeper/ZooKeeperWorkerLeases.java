package dev.distlock.zookeeper;

import dev.distlock.spi.id.HeartbeatWorkerSource;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.spi.id.WorkerLease;
import dev.distlock.spi.id.WorkerLeases;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Worker ids leased in ZooKeeper: worker id {@code n} of a generator is the ephemeral node
 * {@code <root>/id/<generator>/worker/<n>}, which exists only while its holder's session lives, so
 * it is free again the moment that session ends, and no two live sessions can hold it.
 *
 * <p>The rule of {@link dev.distlock.redis.RedisWorkerLeases} holds here too: the node stops issuing before the worker id
 * can be taken. ZooKeeper ends a session no sooner than its timeout after it last heard from the
 * client; a heartbeat every third of the timeout confirms the node is still this session's, and a
 * confirmation sent at {@code t} lets the node issue until {@code t} plus the timeout, less a safety
 * margin. A suspended connection ends the lease at once. For each worker id,
 * {@code <root>/id/<generator>/last/<n>} holds the last millisecond its holder may have issued ids
 * in (raised on every heartbeat to the clock plus the timeout, lowered to what was really issued on
 * an orderly release); a node whose clock is not past it does not take that worker id. As with Redis,
 * no id is issued past what is recorded there.
 */
public final class ZooKeeperWorkerLeases extends HeartbeatWorkerSource {

    private static final System.Logger LOG = System.getLogger(ZooKeeperWorkerLeases.class.getName());

    private final CuratorFramework client;
    private final long sessionTimeoutMillis;
    private final long safetyMillis;
    private final String workers;
    private final String lasts;
    private final byte[] token = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);
    private final ConnectionStateListener sessionWatch = this::stateChanged;
    /** The session the lease's node belongs to. */
    private volatile long sessionId;

    private ZooKeeperWorkerLeases(String generator, CuratorFramework client, String root, SnowflakeLayout layout,
                                  Clock clock, LongSupplier lastIssuedMillis, long sessionTimeoutMillis) {
        super(generator, layout, clock, lastIssuedMillis, "ZooKeeper");
        this.client = client;
        this.sessionTimeoutMillis = sessionTimeoutMillis;
        this.safetyMillis = Math.max(50, sessionTimeoutMillis / 10);
        String base = root + "/id/" + generator;
        this.workers = base + "/worker/";
        this.lasts = base + "/last/";
        client.getConnectionStateListenable().addListener(sessionWatch);
        startHeartbeat(sessionTimeoutMillis / 3);
    }

    /**
     * @param client               a started Curator client; its session timeout must be {@code sessionTimeoutMillis} or less
     * @param root                 the path distlock uses in ZooKeeper, e.g. {@code /distlock}
     */
    public static WorkerLeases factory(CuratorFramework client, String root, long sessionTimeoutMillis) {
        return (generator, layout, clock, lastIssued) ->
                new ZooKeeperWorkerLeases(generator, client, root, layout, clock, lastIssued, sessionTimeoutMillis);
    }

    private void stateChanged(CuratorFramework ignored, ConnectionState state) {
        if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
            // The server may end the session before this client hears from it again: stop issuing now.
            WorkerLease current = lease;
            if (current != null) {
                current.end();
            }
        } else if (state == ConnectionState.RECONNECTED) {
            WorkerLease current = lease;
            if (current != null && currentSession() != sessionId) {
                current.end(); // a new session: the old one's node is not this client's to keep alive
            }
            reacquireSoon();
        }
    }

    @Override
    protected void acquire(WorkerLease ended) throws Exception {
        if (ended != null) {
            release(ended); // its node, if this session still has it, is freed first
        }
        long started = System.nanoTime();
        int count = (int) (layout.maxWorker() + 1);
        int start = ThreadLocalRandom.current().nextInt(count);
        for (int i = 0; i < count; i++) {
            int worker = (start + i) % count;
            Stat created = new Stat();
            try {
                client.create().storingStatIn(created).creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
                        .forPath(workers + worker, token);
            } catch (KeeperException.NodeExistsException taken) {
                continue;
            }
            // The session that created the node, from the node itself: the client's session id may
            // still be 0 (not yet connected) when an acquisition starts.
            long session = created.getEphemeralOwner();
            long now = elapsedMillis();
            long previousLast = readLast(worker);
            if (previousLast >= now) {
                // Used by a node whose clock was ahead of this one: not until this clock passes it.
                client.delete().guaranteed().forPath(workers + worker);
                continue;
            }
            writeLast(worker, now + sessionTimeoutMillis);
            sessionId = session;
            lease = new WorkerLease(generator, worker, previousLast, now + sessionTimeoutMillis, validUntil(started));
            LOG.log(System.Logger.Level.INFO, "Id generator ''{0}'' leased worker id {1} in ZooKeeper", generator, worker);
            return;
        }
        throw allTaken(count);
    }

    @Override
    protected void renew(WorkerLease current) throws Exception {
        long started = System.nanoTime();
        // The node must be this client's session's, and that session must be the one the client has now:
        // after an expiry the old session's node lingers until the server ends it, and nothing here
        // keeps that session alive any more.
        Stat stat = client.checkExists().forPath(workers + current.workerId);
        if (currentSession() != sessionId || stat == null || stat.getEphemeralOwner() != sessionId) {
            current.end();
            LOG.log(System.Logger.Level.WARNING, "Id generator ''{0}'' lost worker id {1} (its session ended); taking another",
                    generator, current.workerId);
            acquire(null);
            return;
        }
        long mayIssueUntil = Math.max(lastIssuedMillis.getAsLong(), elapsedMillis() + sessionTimeoutMillis);
        writeLast(current.workerId, mayIssueUntil);
        current.extendTo(validUntil(started));
        current.recorded(mayIssueUntil);
    }

    /** An orderly end: lowers the bound to what was really issued, then frees the worker id. */
    @Override
    protected void release(WorkerLease current) {
        current.end();
        long lastIssued = Math.max(lastIssuedMillis.getAsLong(), current.previousHolderLastMillis);
        try {
            Stat stat = client.checkExists().forPath(workers + current.workerId);
            if (stat != null && stat.getEphemeralOwner() == sessionId) {
                writeLast(current.workerId, lastIssued);
                client.delete().guaranteed().forPath(workers + current.workerId);
            }
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "Id generator ''{0}'' could not return worker id {1}; it is free once its "
                    + "session ends", generator, current.workerId);
        }
    }

    private long readLast(int worker) throws Exception {
        try {
            return Long.parseLong(new String(client.getData().forPath(lasts + worker), StandardCharsets.UTF_8));
        } catch (KeeperException.NoNodeException none) {
            return -1;
        }
    }

    /** Only the worker id's holder writes its bound. */
    private void writeLast(long worker, long millis) throws Exception {
        byte[] value = Long.toString(millis).getBytes(StandardCharsets.UTF_8);
        try {
            client.setData().forPath(lasts + worker, value);
        } catch (KeeperException.NoNodeException none) {
            client.create().creatingParentContainersIfNeeded().forPath(lasts + worker, value);
        }
    }

    /** The session the client has now; 0 when it has none. */
    private long currentSession() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /** The session timeout the server granted, if it is shorter than the one asked for; it counts, not the wish. */
    private long sessionTimeout() {
        try {
            int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
            return negotiated > 0 ? Math.min(negotiated, sessionTimeoutMillis) : sessionTimeoutMillis;
        } catch (Exception e) {
            return sessionTimeoutMillis;
        }
    }

    private long validUntil(long requestSentNanos) {
        long timeout = sessionTimeout();
        return requestSentNanos + TimeUnit.MILLISECONDS.toNanos(timeout - Math.max(safetyMillis, timeout / 10));
    }

    @Override
    public void close() {
        client.getConnectionStateListenable().removeListener(sessionWatch);
        super.close();
    }
}
