package dev.distlock.zookeeper;

import dev.distlock.spi.id.WorkerLeases;
import dev.distlock.spi.id.WorkerLeasing;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockPolicy;
import dev.distlock.spi.StoredLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Locks in ZooKeeper through Apache Curator's lock recipe ({@link InterProcessReadWriteLock}): a
 * holder is an ephemeral sequential node, granted in the order the nodes were created. ZooKeeper is
 * CP: a lock granted by a quorum is not lost by a server failing, as Redis's can be by a failover.
 *
 * <ul>
 *   <li><b>Exclusive</b> locks are the recipe's write lock (in their own namespace, where nobody
 *       reads); <b>read/write</b> locks are its read and write locks.</li>
 *   <li><b>Owner, not thread.</b> The recipe ties a hold to the thread that took it; distlock's
 *       holds belong to an invocation and may end on another thread. So each acquisition has a recipe
 *       instance of its own, used once ({@link RecipeAcquisition}), and the hold is ended by deleting
 *       the node the recipe created, which is what the recipe's own release does.</li>
 *   <li><b>Leases.</b> A watchdog lease lasts as long as the session: ZooKeeper deletes the node
 *       when the session expires. A fixed lease is ended by this backend when it runs out (and by
 *       the session's end if this JVM dies first).</li>
 *   <li><b>Fencing tokens</b> are the lock node's creation transaction id ({@code czxid}): ZooKeeper
 *       orders every write of the ensemble, so a node created later has a larger id, and the recipe
 *       grants in creation order. Unlike the node's sequence number, it does not start again when
 *       the lock's parent node is removed while unused. It only goes back if the ensemble's data is
 *       wiped.</li>
 *   <li><b>Lost locks</b> are told by the session's state: while the connection is suspended a hold
 *       cannot be confirmed (the engine counts it lost once its session timeout has passed
 *       unconfirmed); once the session is lost, every hold it had is lost.</li>
 * </ul>
 */
public final class ZooKeeperBackend implements LockBackend, WorkerLeasing {

    private static final System.Logger LOG = System.getLogger(ZooKeeperBackend.class.getName());

    /** For a client made elsewhere: the session timeout is the one the client negotiated. */
    public static final long NEGOTIATED = 0;
    /** Twice a default ZooKeeper server's tick: the shortest session it grants. */
    static final long LEAST_SESSION_TIMEOUT_MILLIS = 4_000;

    private final CuratorFramework client;
    private final String root;
    private final boolean ownsClient;
    private final long sessionTimeoutMillis;
    private final long answerGraceMillis;
    private final Set<ZooKeeperLease> held = ConcurrentHashMap.newKeySet();
    private final ConnectionStateListener sessionWatch = this::stateChanged;
    private volatile boolean suspended;
    /** The client has had a connection: until then a call waits for the first one, whatever its wait time. */
    private volatile boolean everConnected;
    private volatile Later later = (task, delayNanos) -> { };
    /** What each lock node holds: this server's name once the engine gave it; null for Curator's default. */
    private volatile byte[] nodeData;

    /**
     * @param client               a Curator client, started here if it is not yet
     * @param root                 the path under which locks live, e.g. {@code /distlock}
     * @param ownsClient           close the client with the backend
     * @param sessionTimeoutMillis the session timeout the client asked for: how long a hold can go unconfirmed;
     *                             {@link #NEGOTIATED} for the one the client negotiated with the ensemble
     * @param answerGraceMillis    how long to wait for a connection before a call fails
     */
    public ZooKeeperBackend(CuratorFramework client, String root, boolean ownsClient, long sessionTimeoutMillis,
                            long answerGraceMillis) {
        this.client = Objects.requireNonNull(client, "client");
        this.root = checkRoot(root);
        this.ownsClient = ownsClient;
        if (sessionTimeoutMillis < 0 || answerGraceMillis <= 0) {
            throw new IllegalArgumentException("session timeout must be >= 0 (0: as negotiated) and answer grace > 0, were "
                    + sessionTimeoutMillis + " and " + answerGraceMillis);
        }
        this.sessionTimeoutMillis = sessionTimeoutMillis;
        this.answerGraceMillis = answerGraceMillis;
        if (client.getState() == CuratorFrameworkState.LATENT) {
            client.start();
        }
        client.getConnectionStateListenable().addListener(sessionWatch);
    }

    /**
     * A backend with a Curator client of its own, closed with it. The client connects in the
     * background: the backend can be made while ZooKeeper is down, and calls fail fast until it is up.
     */
    public static ZooKeeperBackend connect(String connectString, String root, long sessionTimeoutMillis,
                                           long connectionTimeoutMillis, long answerGraceMillis) {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) sessionTimeoutMillis)
                .connectionTimeoutMs((int) connectionTimeoutMillis)
                .retryPolicy(new ExponentialBackoffRetry(100, 3, 1_000))
                .build();
        return new ZooKeeperBackend(client, root, true, sessionTimeoutMillis, answerGraceMillis);
    }

    static String checkRoot(String root) {
        if (root == null || !root.startsWith("/") || root.endsWith("/") || root.contains("//")) {
            throw new IllegalArgumentException("The ZooKeeper root must be an absolute path without a trailing '/', "
                    + "e.g. /distlock; was '" + root + "'");
        }
        return root;
    }

    @Override
    public String displayName() {
        return "ZooKeeper";
    }

    @Override
    public void bind(Later later) {
        this.later = later;
    }

    @Override
    public Optional<String> problem() {
        if (client.getZookeeperClient().isConnected()) {
            return Optional.empty();
        }
        return Optional.of("ZooKeeper (" + client.getZookeeperClient().getCurrentConnectionString()
                + ") is not connected" + (suspended ? " (connection suspended)" : ""));
    }

    @Override
    public long leaseMillis(LockPolicy policy) {
        return policy.watchdog() ? sessionTimeoutMillis() : policy.leaseMillis();
    }

    /**
     * The lock nodes this backend makes hold the name of this server ({@link #identify}), written by
     * the same create that takes the lock; before the engine names it, Curator's default (the host's address).
     */
    @Override
    public void identify(String nodeName, String keyPrefix) {
        this.nodeData = nodeName.getBytes(StandardCharsets.UTF_8);
    }

    /** The locks under {@code namePrefix} and their holders' sessions and servers ({@link ZooKeeperLockListing}). */
    @Override
    public List<StoredLock> inspect(String namePrefix, int limit) {
        return ZooKeeperLockListing.list(client, root, namePrefix, limit);
    }

    /** Deletes the nodes holding the lock; refuses {@code onlyIfFenced}, which ZooKeeper cannot tell ({@link ZooKeeperLockListing#end}). */
    @Override
    public List<StoredLock.Holder> forceRelease(String name, boolean onlyIfFenced) {
        return ZooKeeperLockListing.end(client, path(name), name, onlyIfFenced);
    }

    /** The path of the lock {@code name}: the root, then the name with {@code /} and what ZooKeeper refuses escaped. */
    public String path(String name) {
        return root + "/" + NodeNames.encode(name);
    }

    @Override
    public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
        awaitConnection(name, policy, deadlineNanos);
        RecipeAcquisition.Taken taken = RecipeAcquisition.take(this, path(name), nodeData, name, policy, deadlineNanos);
        if (taken == null) {
            return null;
        }
        ZooKeeperLease lease = new ZooKeeperLease(this, name, taken.node(), taken.sessionId(), policy.watchdog(), taken.token());
        held.add(lease);
        if (!policy.watchdog()) {
            later.run(lease::endFixedLease, TimeUnit.MILLISECONDS.toNanos(policy.leaseMillis()));
        }
        return lease;
    }

    /**
     * Fails fast when there is no connection, rather than letting the recipe retry into one: waits
     * for a connection at most the call's remaining wait time, and never longer than the answer grace
     * (the first connection of a new client is waited for the whole grace).
     */
    private void awaitConnection(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
        if (client.getZookeeperClient().isConnected()) {
            everConnected = true;
            return;
        }
        long wait = answerGraceMillis;
        if (everConnected && !policy.waitsForever()) {
            wait = Math.min(wait, Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
        }
        if (wait == 0 || !client.blockUntilConnected((int) wait, TimeUnit.MILLISECONDS)) {
            throw new LockServiceUnavailableException("Could not acquire lock '" + name + "': ZooKeeper ("
                    + client.getZookeeperClient().getCurrentConnectionString() + ") is not connected (waited " + wait
                    + " ms for a connection); the method did not run.", null);
        }
    }

    void deleteQuietly(String node) {
        try {
            client.delete().guaranteed().inBackground().forPath(node);
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, "Could not delete lock node " + node + ": " + e);
        }
    }

    private void stateChanged(CuratorFramework ignored, ConnectionState state) {
        switch (state) {
            case SUSPENDED -> suspended = true;
            case RECONNECTED, CONNECTED -> {
                suspended = false;
                everConnected = true;
            }
            case LOST -> {
                // The session is gone, and with it every ephemeral node it created.
                for (ZooKeeperLease lease : held) {
                    lease.lose();
                }
            }
            default -> { }
        }
    }

    /** Snowflake worker ids as ephemeral nodes of this backend's session, next to its locks. */
    @Override
    public WorkerLeases workerLeases() {
        return ZooKeeperWorkerLeases.factory(client, root, sessionTimeoutMillis());
    }

    /** The client the locks use; worker ids share its session. */
    public CuratorFramework client() {
        return client;
    }

    /** The path locks live under. */
    public String root() {
        return root;
    }

    /**
     * The session timeout asked for or, for {@link #NEGOTIATED}, the one the ensemble granted the
     * client ({@value #LEAST_SESSION_TIMEOUT_MILLIS} ms before it first connected, the least a
     * default server grants: a hold is taken for lost too early rather than too late).
     */
    public long sessionTimeoutMillis() {
        if (sessionTimeoutMillis != NEGOTIATED) {
            return sessionTimeoutMillis;
        }
        int negotiated = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        return negotiated > 0 ? negotiated : LEAST_SESSION_TIMEOUT_MILLIS;
    }

    /** How many holds this backend has now; for tests. */
    public int heldCount() {
        return held.size();
    }

    @Override
    public void close() {
        client.getConnectionStateListenable().removeListener(sessionWatch);
        held.clear();
        if (ownsClient) {
            client.close();
        }
    }

    /** The lease was released: no longer counted, nor lost with the session. */
    void forget(ZooKeeperLease lease) {
        held.remove(lease);
    }

    boolean isHeld(ZooKeeperLease lease) {
        return held.contains(lease);
    }

    /** The session the client has now; 0 when it has none. */
    long currentSession() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    boolean isSuspended() {
        return suspended;
    }
}
