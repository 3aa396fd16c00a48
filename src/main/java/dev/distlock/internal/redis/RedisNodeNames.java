package dev.distlock.internal.redis;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.StoredLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Which server each Redis client is, for {@code inspect} and forced releases. A lock's holder in
 * Redis is the field {@code <client id>:<acquisition id>} that Redisson's scripts write; those
 * scripts are left as they are (a read-write lock's own release counts the fields of its hash). So
 * the name is kept once per client instead of once per holder: {@code <key prefix>:node:<client id>}
 * holds the node name, written as the backend starts and again every {@link #REFRESH_MILLIS} with
 * an expiry of three times that, so that it outlives no client by long and comes back within one
 * refresh after Redis lost its data. Nothing is added to the lock path. A holder whose client wrote
 * no name (another version, a client that is gone) is listed without a server.
 */
final class RedisNodeNames {

    static final long REFRESH_MILLIS = 20_000;
    private static final long RETRY_MILLIS = 2_000;
    private static final System.Logger LOG = System.getLogger(RedisNodeNames.class.getName());

    private final RedisClientSource redis;
    private final String nodeName;
    private final String keyPrefix;
    private volatile boolean closed;
    private volatile boolean warned;

    RedisNodeNames(RedisClientSource redis, String nodeName, String keyPrefix) {
        this.redis = redis;
        this.nodeName = nodeName;
        this.keyPrefix = keyPrefix + ":node:";
    }

    /** Writes this client's name now, and again every {@link #REFRESH_MILLIS} through {@code later} until closed. */
    void keepWritten(LockBackend.Later later) {
        if (closed) {
            return;
        }
        long nextMillis = REFRESH_MILLIS;
        try {
            RedissonClient client = redis.client();
            client.getBucket(keyPrefix + client.getId(), StringCodec.INSTANCE)
                    .setAsync(nodeName, 3 * REFRESH_MILLIS, TimeUnit.MILLISECONDS)
                    .whenComplete((ignored, error) -> {
                        if (error != null && !warned) {
                            warned = true;
                            LOG.log(System.Logger.Level.INFO, "distlock: the node name '" + nodeName
                                    + "' could not be written to Redis (inspect will list this server's holders without it): " + error);
                        }
                    });
        } catch (RuntimeException unreachable) {
            nextMillis = RETRY_MILLIS; // no client yet: Redis was down as the application started
        }
        later.run(() -> keepWritten(later), TimeUnit.MILLISECONDS.toNanos(nextMillis));
    }

    void close() {
        closed = true;
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
