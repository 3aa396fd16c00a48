package dev.distlock.redis;


import dev.distlock.LockServiceUnavailableException;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The client the locks use: the application's own {@link RedissonClient} bean if it has one,
 * otherwise one built from {@code distlock.redis.*}, lazily, so that the application deploys
 * while Redis is down. Until Redis answers, every call fails fast with
 * {@link LockServiceUnavailableException}; a new connection is tried at most once per
 * {@value #RETRY_INTERVAL_MILLIS} ms. A client built here is shut down on undeploy.
 */
final class RedisConnection implements RedisClientSource, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisConnection.class.getName());
    static final long RETRY_INTERVAL_MILLIS = 1_000;
    static final long PROBE_TIMEOUT_MILLIS = 2_000;

    private final Supplier<Optional<RedissonClient>> applicationClient;
    private final Supplier<org.redisson.config.Config> configuration;
    private final String description;

    /**
     * Held while the client is made (a connection to Redis) or shut down. Not a monitor, so that
     * virtual threads making the first locked calls at once do not pin their carriers (Java 21 to 23).
     */
    private final ReentrantLock connecting = new ReentrantLock();
    private volatile RedissonClient client;
    // Guarded by connecting.
    private boolean ownClient;
    private long nextAttemptNanos;
    private LockServiceUnavailableException lastFailure;

    /**
     * @param applicationClient the application's own client, asked when the first one is needed
     * @param configuration     a fresh Redisson configuration for a client of distlock's own
     * @param description       where the client connects, without credentials, for messages
     */
    RedisConnection(Supplier<Optional<RedissonClient>> applicationClient, Supplier<org.redisson.config.Config> configuration,
                    String description) {
        this.applicationClient = applicationClient;
        this.configuration = configuration;
        this.description = description;
    }

    @Override
    public RedissonClient client() {
        RedissonClient current = client;
        return current != null ? current : connect();
    }

    private RedissonClient connect() {
        connecting.lock();
        try {
            return connectLocked();
        } finally {
            connecting.unlock();
        }
    }

    private RedissonClient connectLocked() {
        if (client != null) {
            return client;
        }
        Optional<RedissonClient> own = applicationClient.get();
        if (own.isPresent()) {
            client = own.get();
            if (!(client instanceof Redisson)) {
                LOG.log(System.Logger.Level.INFO, "The application's RedissonClient reaches distlock as a "
                        + client.getClass().getName() + ", not as Redisson's own client (a CDI client proxy of a "
                        + "normal-scoped producer such as @ApplicationScoped, or a wrapper), so @Locked releases use "
                        + "Redisson's release, two commands, instead of distlock's one. Produce it @Singleton "
                        + "(jakarta.inject) to let distlock use it directly.");
            }
            return client;
        }
        long now = System.nanoTime();
        if (lastFailure != null && now - nextAttemptNanos < 0) {
            throw new LockServiceUnavailableException(lastFailure.getMessage(), lastFailure.getCause());
        }
        try {
            client = Redisson.create(configuration.get());
            ownClient = true;
            lastFailure = null;
            return client;
        } catch (RuntimeException e) {
            NettyThreadState.release();
            nextAttemptNanos = now + TimeUnit.MILLISECONDS.toNanos(RETRY_INTERVAL_MILLIS);
            lastFailure = new LockServiceUnavailableException("Redis (" + description + ") "
                    + ConnectFailure.explain(e), e);
            throw lastFailure;
        }
    }

    /**
     * Why Redis cannot serve locks right now, or empty when it answers a round trip within
     * {@value #PROBE_TIMEOUT_MILLIS} ms. For readiness checks; never throws.
     */
    Optional<String> problem() {
        try {
            return probe();
        } finally {
            NettyThreadState.release(); // a health check runs on the server's threads
        }
    }

    private Optional<String> probe() {
        try {
            client().getBucket("distlock-readiness-probe").isExistsAsync().toCompletableFuture()
                    .get(PROBE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        } catch (TimeoutException e) {
            return Optional.of("Redis (" + description + ") did not answer within " + PROBE_TIMEOUT_MILLIS + " ms");
        } catch (ExecutionException e) {
            return Optional.of("Redis (" + description + ") failed: " + e.getCause().getClass().getSimpleName()
                    + explainIfKnown(e.getCause()));
        } catch (RuntimeException e) {
            return Optional.of(e.getMessage());
        }
    }

    /** A reconnect refused for its credentials or certificate says so; anything else stays as it was. */
    private static String explainIfKnown(Throwable failure) {
        String explained = ConnectFailure.explain(failure);
        return explained.startsWith("cannot be reached") ? "" : ": " + explained;
    }

    /** Shuts down a client made here; the application's own stays open. */
    @Override
    public void close() {
        connecting.lock();
        try {
            if (ownClient && client != null) {
                client.shutdown();
            }
            client = null;
        } finally {
            connecting.unlock();
        }
    }
}
