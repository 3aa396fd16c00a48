package dev.distlock.internal.cdi;

import dev.distlock.internal.redis.NettyThreadState;

import dev.distlock.LockServiceUnavailableException;
import dev.distlock.internal.redis.RedisClientSource;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
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
@ApplicationScoped
public class RedisConnection implements RedisClientSource {

    private static final System.Logger LOG = System.getLogger(RedisConnection.class.getName());
    static final long RETRY_INTERVAL_MILLIS = 1_000;
    static final long PROBE_TIMEOUT_MILLIS = 2_000;

    private final Instance<RedissonClient> applicationClients;
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

    @Inject
    RedisConnection(Instance<RedissonClient> applicationClients, DistlockSetup extension) {
        this.applicationClients = applicationClients;
        this.configuration = extension::redissonConfig;
        this.description = extension.redisDescription();
    }

    /** For proxies only. */
    protected RedisConnection() {
        this.applicationClients = null;
        this.configuration = null;
        this.description = null;
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
        if (applicationClients.isResolvable()) {
            client = applicationClients.get();
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
    public Optional<String> problem() {
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

    @PreDestroy
    void close() {
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
