package dev.distlock.redis;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.connection.ConnectionEventsHub;
import org.redisson.connection.ConnectionListener;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the times the Redis client lost its connection to a Redis server. A lease Redis confirmed
 * before such a loss is not known held after it: the loss may be Redis restarting without its data,
 * or failing over to a replica that never saw the lock, and only a new question can tell. A new
 * client (the application's connection was made again) counts as a loss too.
 */
class RedisConnectionBreaks implements AutoCloseable {

    /** {@link #count} for a client whose losses cannot be seen (not Redisson's own): nothing is known held on it. */
    static final long UNSEEN = -1;

    private final AtomicLong count = new AtomicLong();
    private volatile RedissonClient watched;
    /** Guarded by this: where the listener is, to take it away again. */
    private ConnectionEventsHub hub;
    private int listenerId;

    /**
     * How many losses have been seen so far; from now on {@code client}'s are counted.
     *
     * @return a count that only grows, or {@link #UNSEEN}
     */
    long count(RedissonClient client) {
        if (watched != client) {
            watch(client);
        }
        return client instanceof Redisson ? count.get() : UNSEEN;
    }

    private synchronized void watch(RedissonClient client) {
        if (watched == client) {
            return;
        }
        stopWatching();
        count.incrementAndGet(); // what the previous client was told is not known through this one
        if (client instanceof Redisson redisson) {
            hub = redisson.getServiceManager().getConnectionEventsHub();
            listenerId = hub.addListener(new ConnectionListener() {
                @Override
                public void onConnect(InetSocketAddress address) {
                    // a connection made is no news; one lost is
                }

                @Override
                public void onDisconnect(InetSocketAddress address) {
                    count.incrementAndGet();
                }
            });
        }
        watched = client;
    }

    private void stopWatching() {
        if (hub != null) {
            hub.removeListener(listenerId);
            hub = null;
        }
    }

    @Override
    public synchronized void close() {
        stopWatching();
        watched = null;
        count.incrementAndGet();
    }
}
