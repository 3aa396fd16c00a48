package dev.distlock.redis;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.StoredLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Which server each Redis client is, for {@code inspect} and forced releases. A lock's holder in
 * Redis is the field {@code <client id>:<acquisition id>} that Redisson's scripts write; those
 * scripts are left as they are (a read-write lock's own release counts the fields of its hash). So
 * the name is kept once per client instead of once per holder: {@code <key prefix>:node:<client id>}
 * holds the node name, sent (not waited for) with the first acquisition and again every
 * {@link #REFRESH_MILLIS} with an expiry of three times that, so that it outlives no client by long
 * and comes back within one refresh after Redis lost its data; removed when the engine closes. No
 * round trip is added to the lock path. A holder whose client wrote
 * no name (another version, a client that is gone) is listed without a server.
 */
final class RedisNodeNames {

    static final long REFRESH_MILLIS = 20_000;
    /** How long a close waits for the name's removal; it expires anyway. */
    private static final long CLOSE_WAIT_MILLIS = 1_000;
    private static final System.Logger LOG = System.getLogger(RedisNodeNames.class.getName());

    private final String nodeName;
    private final String keyPrefix;
    /** The client the name is written through: the first a lock was taken with; null until then. */
    private final AtomicReference<RedissonClient> writtenThrough = new AtomicReference<>();
    private volatile LockBackend.Later later = (task, delayNanos) -> { };
    private volatile boolean closed;
    private volatile boolean warned;

    RedisNodeNames(String nodeName, String keyPrefix) {
        this.nodeName = nodeName;
        this.keyPrefix = keyPrefix + ":node:";
    }

    void bind(LockBackend.Later later) {
        this.later = later;
    }

    /**
     * Called with the client of each acquisition: the first time, sends this client's name (not
     * waited for) and starts its refresh on the engine's thread, through that client, which is
     * never asked to connect there. Afterwards one read of a field.
     */
    void taking(RedissonClient client) {
        if (writtenThrough.get() == null && writtenThrough.compareAndSet(null, client)) {
            write(client);
        }
    }

    private void write(RedissonClient client) {
        if (closed) {
            return;
        }
        try {
            client.getBucket(keyPrefix + client.getId(), StringCodec.INSTANCE)
                    .setAsync(nodeName, 3 * REFRESH_MILLIS, TimeUnit.MILLISECONDS)
                    .whenComplete((ignored, error) -> {
                        if (error != null && !warned) {
                            warned = true;
                            LOG.log(System.Logger.Level.INFO, "distlock: the node name '" + nodeName
                                    + "' could not be written to Redis (inspect lists this server's holders without it "
                                    + "until a refresh succeeds): " + error);
                        }
                    });
        } catch (RuntimeException shutDown) {
            return; // the client was shut down: the engine is closing
        }
        later.run(() -> write(client), TimeUnit.MILLISECONDS.toNanos(REFRESH_MILLIS));
    }

    /** Stops the refresh and removes this client's name (best effort: it expires anyway). */
    void close() {
        closed = true;
        RedissonClient client = writtenThrough.get();
        if (client == null) {
            return;
        }
        try {
            client.getBucket(keyPrefix + client.getId(), StringCodec.INSTANCE).deleteAsync().toCompletableFuture()
                    .get(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | ExecutionException | TimeoutException goneAlready) {
            // the client was shut down first, or Redis does not answer: the name expires on its own
        }
    }

    /** {@code ids} ({@code <client id>:<acquisition id>}) with the server of each whose client wrote its name. */
    List<StoredLock.Holder> named(RedissonClient client, List<String> ids, long answerMillis) {
        Set<String> keys = new LinkedHashSet<>();
        for (String id : ids) {
            keys.add(keyPrefix + clientOf(id));
        }
        Map<String, Object> names = keys.isEmpty() ? Map.of() : RedisBackend.await(
                client.getBuckets(StringCodec.INSTANCE).<Object>getAsync(keys.toArray(String[]::new)).toCompletableFuture(),
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(answerMillis), answerMillis,
                "reading the servers' names in Redis");
        List<StoredLock.Holder> holders = new ArrayList<>(ids.size());
        for (String id : ids) {
            Object name = names.get(keyPrefix + clientOf(id));
            holders.add(StoredLock.Holder.of(id, name == null ? null : name.toString()));
        }
        return holders;
    }

    /** The client id of a holder field: everything before its last {@code :}. */
    static String clientOf(String holderId) {
        int colon = holderId.lastIndexOf(':');
        return colon < 0 ? holderId : holderId.substring(0, colon);
    }
}
