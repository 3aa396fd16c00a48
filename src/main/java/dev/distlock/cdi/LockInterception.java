package dev.distlock.cdi;

import dev.distlock.DistributedLocks;
import dev.distlock.LockContext;
import dev.distlock.LockLostEvent;
import dev.distlock.core.Engines;
import dev.distlock.core.jdbc.JdbcBackend;
import dev.distlock.core.zookeeper.ZooKeeperBackend;
import dev.distlock.core.LockExecutor;
import dev.distlock.LockListener;
import dev.distlock.LockMode;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import jakarta.transaction.TransactionSynchronizationRegistry;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.time.Instant;
import java.util.List;

/**
 * What the three interceptors share: the spec of the intercepted method, resolved at deployment,
 * and the engine. Each interceptor instance takes an {@link InterceptedBean} from it once; the
 * per-call path is a reference comparison, rendering the keys, and the engine.
 */
@ApplicationScoped
public class LockInterception {

    /**
     * Outside {@code @Transactional} ({@code PLATFORM_BEFORE + 200}): the lock is taken before the
     * transaction begins and released after it has committed or rolled back.
     */
    public static final int PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 100;

    private final DistlockSetup extension;
    private final DistributedLocks locks;
    private final LockExecutor executor;

    @Inject
    LockInterception(DistlockSetup extension, RedisConnection redis,
                     Instance<TransactionSynchronizationRegistry> registries, Instance<LockListener> listeners,
                     Event<LockLostEvent> lostEvents, Instance<DataSource> dataSources) {
        this.extension = extension;
        DistributedLocks.Builder builder = lockStore(extension, redis, dataSources)
                .keyPrefix(extension.keyPrefix())
                .answerGrace(extension.answerGrace())
                .localHandoff(extension.handoff())
                .verifyBeforeCommit(extension.verifyBeforeCommit())
                .leaseProof(extension.leaseProof())
                .listener(new Listeners(listeners.stream().toList(), lostEvents));
        this.locks = Engines.transactions(builder,
                new JtaTransactions(new Memo<>(() -> registries.isResolvable() ? registries.get() : JtaTransactions.lookup()))).build();
        this.executor = Engines.executor(locks);
    }

    /** Redis (the default), or the backend {@code distlock.backend} names; Curator is loaded only for ZooKeeper. */
    private static DistributedLocks.Builder lockStore(DistlockSetup extension, RedisConnection redis,
                                                      Instance<DataSource> dataSources) {
        BackendSettings backend = extension.backend();
        long grace = extension.answerGrace().toMillis();
        return switch (backend.kind()) {
            case ZOOKEEPER -> Engines.builder(ZooKeeperBackend.connect(backend.zooKeeperConnect(), backend.zooKeeperRoot(),
                    backend.sessionTimeoutMillis(), backend.connectionTimeoutMillis(), grace));
            case JDBC -> Engines.builder(new JdbcBackend(() -> dataSource(backend.jdbc(), dataSources), backend.jdbc().table(),
                    backend.jdbc().leaseMillis(), grace));
            case REDIS -> DistributedLocks.builder(redis::client);
        };
    }

    /**
     * The DataSource the database backend uses: {@code distlock.jdbc.datasource} if set, otherwise the
     * application's DataSource bean if it has exactly one, otherwise {@value IdDefinition#DEFAULT_DATASOURCE}.
     * Looked up by the first locked call, on its thread: on Payara a {@code java:app} name cannot be
     * looked up while the application starts, nor on distlock's own threads.
     */
    private static DataSource dataSource(BackendSettings.Jdbc jdbc, Instance<DataSource> dataSources) {
        if (jdbc.dataSource().isEmpty() && dataSources.isResolvable()) {
            return dataSources.get();
        }
        String jndiName = jdbc.dataSource().orElse(IdDefinition.DEFAULT_DATASOURCE);
        try {
            return (DataSource) new InitialContext().lookup(jndiName);
        } catch (NamingException | RuntimeException e) {
            throw new IllegalStateException("distlock.backend=jdbc needs a DataSource, but " + jndiName
                    + " cannot be looked up (" + e.getClass().getSimpleName() + "). Set distlock.jdbc.datasource to the "
                    + "JNDI name of one, or produce a javax.sql.DataSource bean.");
        }
    }

    /**
     * Where leased Snowflake worker ids come from when the locks live in ZooKeeper: the same session's
     * ephemeral nodes; empty for the other backends (their worker ids are leased in Redis).
     */
    public java.util.Optional<dev.distlock.core.id.WorkerLeases> zooKeeperWorkerLeases() {
        if (extension.backend().kind() != BackendSettings.Kind.ZOOKEEPER) {
            return java.util.Optional.empty(); // ZooKeeperBackend is not touched: Curator may be absent
        }
        ZooKeeperBackend zooKeeper = (ZooKeeperBackend) executor.backend();
        return java.util.Optional.of(dev.distlock.core.id.ZooKeeperWorkerLeases.factory(zooKeeper.client(), zooKeeper.root(),
                zooKeeper.sessionTimeoutMillis()));
    }

    /** Whether the locks live in Redis (the default) rather than another backend. */
    public boolean locksInRedis() {
        return executor.backend() instanceof dev.distlock.core.RedisBackend;
    }

    /** The lock store, as {@code distlock.backend} names it: {@code redis}, {@code zookeeper}, {@code jdbc}. */
    public String lockStoreName() {
        return extension.backend().kind().configValue();
    }

    /** Why the lock store cannot serve locks now; empty when it can. For readiness checks. */
    public java.util.Optional<String> lockStoreProblem() {
        return executor.backend().problem();
    }

    /**
     * Makes the setup as the application starts: in CDI Lite the run-time configuration is checked
     * then, so a bad setting fails the start, not the first locked call. (In full CDI it was checked
     * at deployment; this only looks it up.)
     */
    static void checkAtStart(@Observes @Initialized(ApplicationScoped.class) Object started, DistlockSetup setup) {
        setup.keyPrefix();
    }

    /** For proxies only. */
    protected LockInterception() {
        this.extension = null;
        this.locks = null;
        this.executor = null;
    }

    /** The application stops: the engine's thread goes with it (a redeploy leaves nothing behind). */
    @PreDestroy
    void close() {
        locks.close();
    }

    /** What the commit guards call, taken once per interceptor instance. */
    CommitGuard commitGuard() {
        return new CommitGuard(executor);
    }

    /** The engine, for tests and for the programmatic use inside CDI. */
    public DistributedLocks locks() {
        return locks;
    }

    /**
     * {@code @Inject DistributedLocks}: the engine the annotations use, for locks taken in code and
     * for {@link DistributedLocks#raiseFencingFloor}. distlock closes it when the application
     * stops; the application does not.
     */
    @Produces
    @Dependent
    DistributedLocks distributedLocks() {
        return locks;
    }

    /** {@code @Inject LockContext}: what the running locked call holds, e.g. its fencing token. */
    @Produces
    @Dependent
    LockContext lockContext() {
        return locks.context();
    }

    /**
     * What an interceptor instance calls on every invocation: a plain object holding the engine,
     * taken once, so that a call does not go through this bean's client proxy each time.
     */
    InterceptedBean intercepting(Class<?> beanClass) {
        return new InterceptedBean(beanClass, extension, executor);
    }

    /** Every {@link LockListener} bean of the application and of distlock (metrics), in turn, with the site. */
    private record Listeners(List<LockListener> all, Event<LockLostEvent> lostEvents) implements LockListener {
        @Override
        public void acquired(String key, String site, LockMode mode, long waitNanos) {
            all.forEach(listener -> listener.acquired(key, site, mode, waitNanos));
        }

        @Override
        public void released(String key, String site, LockMode mode, long heldNanos) {
            all.forEach(listener -> listener.released(key, site, mode, heldNanos));
        }

        @Override
        public void timedOut(String key, String site, LockMode mode, long waitNanos) {
            all.forEach(listener -> listener.timedOut(key, site, mode, waitNanos));
        }

        /** Also an asynchronous CDI event: observers never run on Redisson's I/O threads. */
        @Override
        public void lost(String key, String site, LockMode mode) {
            all.forEach(listener -> listener.lost(key, site, mode));
            lostEvents.fireAsync(new LockLostEvent(key, mode, Instant.now()));
        }
    }

    /** Resolves once, on first use: the registry may only be reachable once the application runs. */
    private static final class Memo<T> implements java.util.function.Supplier<T> {
        private final java.util.function.Supplier<T> source;
        private volatile boolean resolved;
        private T value;

        Memo(java.util.function.Supplier<T> source) {
            this.source = source;
        }

        @Override
        public T get() {
            if (!resolved) {
                synchronized (this) {
                    if (!resolved) {
                        value = source.get();
                        resolved = true;
                    }
                }
            }
            return value;
        }
    }
}
