package dev.distlock.core.id;

import dev.distlock.id.IdGenerationException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Worker ids leased in ZooKeeper: worker id {@code n} of a generator is the ephemeral node
 * {@code <root>/id/<generator>/worker/<n>}, which exists only while its holder's session lives, so
 * it is free again the moment that session ends, and no two live sessions can hold it.
 *
 * <p>The rule of {@link RedisWorkerLeases} holds here too: the node stops issuing before the worker id
 * can be taken. ZooKeeper ends a session no sooner than its timeout after it last heard from the
 * client; a heartbeat every third of the timeout confirms the node is still this session's, and a
 * confirmation sent at {@code t} lets the node issue until {@code t} plus the timeout, less a safety
 * margin. A suspended connection ends the lease at once. For each worker id,
 * {@code <root>/id/<generator>/last/<n>} holds the last millisecond its holder may have issued ids
 * in (raised on every heartbeat to the clock plus the timeout, lowered to what was really issued on
 * an orderly release); a node whose clock is not past it does not take that worker id.
 */
public final class ZooKeeperWorkerLeases implements WorkerSource {

    private static final System.Logger LOG = System.getLogger(ZooKeeperWorkerLeases.class.getName());

    private final String generator;
    private final CuratorFramework client;
    private final SnowflakeLayout layout;
    private final Clock clock;
    private final LongSupplier lastIssuedMillis;
    private final long sessionTimeoutMillis;
    private final long safetyMillis;
    private final String workers;
    private final String lasts;
    private final byte[] token = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);
    private final ScheduledExecutorService heartbeat;
    private final ConnectionStateListener sessionWatch = this::stateChanged;

    private volatile WorkerLease lease;
    private volatile long sessionId;
    private volatile IdGenerationException lastFailure;
    /** Guarded by this. */
    private boolean closed;

    private ZooKeeperWorkerLeases(String generator, CuratorFramework client, String root, SnowflakeLayout layout,
                                  Clock clock, LongSupplier lastIssuedMillis, long sessionTimeoutMillis) {
        this.generator = generator;
        this.client = client;
        this.layout = layout;
        this.clock = clock;
        this.lastIssuedMillis = lastIssuedMillis;
        this.sessionTimeoutMillis = sessionTimeoutMillis;
        this.safetyMillis = Math.max(50, sessionTimeoutMillis / 10);
        String base = root + "/id/" + generator;
        this.workers = base + "/worker/";
        this.lasts = base + "/last/";
        this.heartbeat = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-worker-lease-" + generator);
            thread.setDaemon(true);
            return thread;
        });
        client.getConnectionStateListenable().addListener(sessionWatch);
        long period = Math.max(1, sessionTimeoutMillis / 3);
        heartbeat.scheduleWithFixedDelay(this::renewOrAcquire, 0, period, TimeUnit.MILLISECONDS);
    }

    /**
     * @param client               a started Curator client; its session timeout must be {@code sessionTimeoutMillis} or less
     * @param root                 the path distlock uses in ZooKeeper, e.g. {@code /distlock}
     */
    public static WorkerLeases factory(CuratorFramework client, String root, long sessionTimeoutMillis) {
        return (generator, layout, clock, lastIssued) ->
                new ZooKeeperWorkerLeases(generator, client, root, layout, clock, lastIssued, sessionTimeoutMillis);
    }

    @Override
    public WorkerLease current() {
        WorkerLease current = lease;
        if (current != null && current.isValid()) {
            return current;
        }
        if (current != null) {
            reacquireSoon();
            throw new IdGenerationException("Id generator '" + generator + "' lost the lease on worker id " + current.workerId
                    + " (its ZooKeeper session was not confirmed in time); it issues no ids until it holds a worker id "
                    + "again, so that no other node can issue the same ids.", lastFailure);
        }
        synchronized (this) {
            current = lease;
            if (current == null || !current.isValid()) {
                renewOrAcquire();
                current = lease;
            }
        }
        if (current == null || !current.isValid()) {
            IdGenerationException failure = lastFailure;
            throw failure != null ? failure : new IdGenerationException("Id generator '" + generator + "' holds no worker id");
        }
        return current;
    }

    private void reacquireSoon() {
        try {
            heartbeat.execute(this::renewOrAcquire);
        } catch (RejectedExecutionException closedMeanwhile) {
            // closed
        }
    }

    private void stateChanged(CuratorFramework ignored, ConnectionState state) {
        if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
            // The server may end the session before this client hears from it again: stop issuing now.
            WorkerLease current = lease;
            if (current != null) {
                current.end();
            }
        } else if (state == ConnectionState.RECONNECTED) {
            reacquireSoon();
        }
    }

    private synchronized void renewOrAcquire() {
        if (closed) {
            return;
        }
        try {
            WorkerLease current = lease;
            if (current != null && current.isValid()) {
                renew(current);
            } else {
                if (current != null) {
                    giveBack(current);
                }
                acquire();
            }
            lastFailure = null;
        } catch (Exception e) {
            lastFailure = e instanceof IdGenerationException known ? known : new IdGenerationException(
                    "Id generator '" + generator + "' cannot lease a worker id from ZooKeeper: " + e
                            + "; it issues no ids until it can.", e);
            LOG.log(System.Logger.Level.WARNING, lastFailure.getMessage());
        }
    }

    private void acquire() throws Exception {
        long started = System.nanoTime();
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        int count = (int) (layout.maxWorker() + 1);
        int start = ThreadLocalRandom.current().nextInt(count);
        for (int i = 0; i < count; i++) {
            int worker = (start + i) % count;
            try {
                client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(workers + worker, token);
            } catch (KeeperException.NodeExistsException taken) {
                continue;
            }
            long now = elapsedMillis();
            long previousLast = readLast(worker);
            if (previousLast >= now) {
                // Used by a node whose clock was ahead of this one: not until this clock passes it.
                client.delete().guaranteed().forPath(workers + worker);
                continue;
            }
            writeLast(worker, now + sessionTimeoutMillis);
            sessionId = session;
            lease = new WorkerLease(generator, worker, previousLast, validUntil(started));
            LOG.log(System.Logger.Level.INFO, "Id generator ''{0}'' leased worker id {1} in ZooKeeper", generator, worker);
            return;
        }
        throw new IdGenerationException("Id generator '" + generator + "': all " + count + " worker ids are leased by "
                + "live sessions (or were used by a node whose clock is ahead of this one); add worker bits or stop nodes.");
    }

    private void renew(WorkerLease current) throws Exception {
        long started = System.nanoTime();
        Stat stat = client.checkExists().forPath(workers + current.workerId);
        if (stat == null || stat.getEphemeralOwner() != sessionId) {
            current.end();
            LOG.log(System.Logger.Level.WARNING, "Id generator ''{0}'' lost worker id {1} (its session ended); taking another",
                    generator, current.workerId);
            acquire();
            return;
        }
        writeLast(current.workerId, Math.max(lastIssuedMillis.getAsLong(), elapsedMillis() + sessionTimeoutMillis));
        current.extendTo(validUntil(started));
    }

    /** An orderly end: lowers the bound to what was really issued, then frees the worker id. */
    private void giveBack(WorkerLease current) {
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

    private long elapsedMillis() {
        return clock.millis() - layout.epoch().toEpochMilli();
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
        heartbeat.shutdown();
        client.getConnectionStateListenable().removeListener(sessionWatch);
        synchronized (this) {
            closed = true;
            WorkerLease current = lease;
            if (current != null) {
                giveBack(current);
            }
        }
    }
}
