package dev.distlock.runtimes.shapes;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.redisson.api.RedissonClient;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;

/**
 * Counts the callers inside each guarded region, across both servers, in Redis: a region is
 * entered once its lock is held and left when the work it guards is done — at the end of the
 * locked method, or just before the transaction it ran in commits. A caller that enters a region
 * somebody else is inside of is an overlap: two holders at once.
 */
@ApplicationScoped
public class Regions {

    /** How long a region holds between entering and leaving: the window a second holder needs. */
    private static final long THINK_NANOS = 1_000_000;

    @Inject
    RedissonClient redis;

    @Inject
    @ConfigProperty(name = "distlock.key-prefix", defaultValue = "distlock")
    String prefix;

    /** Where the runtime offers the registry as a bean (Quarkus, WildFly); JNDI elsewhere. */
    @Inject
    Instance<TransactionSynchronizationRegistry> registries;

    private volatile TransactionSynchronizationRegistry registry;

    public void enter(String shape, String key) {
        if (redis.getAtomicLong(prefix + ":inside:" + shape + ":" + key).incrementAndGet() > 1) {
            redis.getAtomicLong(prefix + ":overlaps:" + shape).incrementAndGet();
        }
    }

    public void leave(String shape, String key) {
        redis.getAtomicLong(prefix + ":inside:" + shape + ":" + key).decrementAndGet();
    }

    /** {@link #enter} without waiting for Redis on the caller's thread: for work on an event loop. */
    public CompletionStage<Void> enterAsync(String shape, String key) {
        return redis.getAtomicLong(prefix + ":inside:" + shape + ":" + key).incrementAndGetAsync()
                .thenCompose(inside -> inside > 1
                        ? redis.getAtomicLong(prefix + ":overlaps:" + shape).incrementAndGetAsync().thenApply(overlaps -> (Void) null)
                        : CompletableFuture.<Void>completedFuture(null));
    }

    /** {@link #leave} without waiting for Redis on the caller's thread. */
    public CompletionStage<Void> leaveAsync(String shape, String key) {
        return redis.getAtomicLong(prefix + ":inside:" + shape + ":" + key).decrementAndGetAsync().thenApply(inside -> (Void) null);
    }

    /** The region ends just before the active transaction commits (these shapes never roll back). */
    public void leaveBeforeCommit(String shape, String key) {
        registry().registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                leave(shape, key);
            }

            @Override
            public void afterCompletion(int status) {
            }
        });
    }

    /** Work that takes a moment, inside the region. */
    public void think() {
        LockSupport.parkNanos(THINK_NANOS);
    }

    /** The transaction synchronization registry, from the runtime's beans or JNDI. */
    public TransactionSynchronizationRegistry registry() {
        if (registry == null) {
            if (registries.isResolvable()) {
                registry = registries.get();
            } else {
                try {
                    registry = (TransactionSynchronizationRegistry) new InitialContext().lookup("java:comp/TransactionSynchronizationRegistry");
                } catch (NamingException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return registry;
    }
}
