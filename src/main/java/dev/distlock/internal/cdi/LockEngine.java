package dev.distlock.internal.cdi;


import dev.distlock.LockListener;
import dev.distlock.LockLostEvent;
import dev.distlock.LockMode;
import dev.distlock.internal.core.EngineBuilder;
import dev.distlock.internal.core.EngineLocks;
import dev.distlock.internal.core.JtaTransactions;
import dev.distlock.internal.core.LockExecutor;
import dev.distlock.internal.core.LockTracing;
import dev.distlock.spi.id.WorkerLeases;
import dev.distlock.spi.id.WorkerLeasing;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.id.IdStore;
import org.redisson.api.RedissonClient;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The application's one lock engine, made from the settings as the application starts: the backend
 * {@code distlock.backend} names (its {@link dev.distlock.spi.LockBackendProvider}'s), the
 * transaction manager, the application's {@link LockListener} beans, the lock spans where
 * OpenTelemetry is present. Closed when the application
 * stops, so a redeploy leaves no thread behind.
 */
@ApplicationScoped
public class LockEngine {

    private final EngineSettings settings;
    private final LockExecutor executor;
    private final EngineLocks locks;
    private final IdStores idStores;

    @Inject
    LockEngine(DistlockSetup setup, Instance<Object> beans,
               Instance<TransactionSynchronizationRegistry> registries, Instance<LockListener> listeners,
               Instance<LockTracing> tracing, Event<LockLostEvent> lostEvents) {
        this.settings = setup.settings();
        BackendSettings backend = settings.backend();
        Beans applicationBeans = new Beans(beans);
        LockBackend store = backend.configured().start(applicationBeans);
        this.idStores = new IdStores(store, backend.redis(), applicationBeans);
        this.locks = new EngineBuilder()
                .settings(settings.locks().withListener(new Listeners(listeners.stream().toList(), lostEvents)))
                .tracing(settings.tracing() && tracing.isResolvable() ? tracing.get() : LockTracing.NONE)
                .transactions(new JtaTransactions(new Memo<>(() -> registries.isResolvable() ? registries.get() : JtaTransactions.lookup())))
                .build(store);
        this.executor = locks.executor();
    }

    /** For proxies only. */
    protected LockEngine() {
        this.idStores = null;
        this.settings = null;
        this.executor = null;
        this.locks = null;
    }

    /** The engine the interceptors call. */
    LockExecutor executor() {
        return executor;
    }

    /** The programmatic API over the same engine. */
    EngineLocks locks() {
        return locks;
    }

    /**
     * Where leased Snowflake worker ids come from when the lock backend keeps them (ZooKeeper's
     * session); empty for the others, whose worker ids are leased in Redis.
     */
    public Optional<WorkerLeases> workerLeases() {
        return executor.backend() instanceof WorkerLeasing leasing ? Optional.of(leasing.workerLeases()) : Optional.empty();
    }

    /**
     * Where id generators keep worker leases, clock floors and the day's serials: the lock backend
     * when it is such a store (Redis), otherwise Redis, started when first needed and closed with
     * the engine.
     */
    public IdStore idStore() {
        return idStores.store();
    }

    /** The Redis client behind {@link #idStore()}, for tests and benchmarks that look at what distlock keeps there. */
    public Supplier<RedissonClient> redisClient() {
        return idStores.redisClient();
    }

    /** Forgets what the client libraries of the lock backend and the id store keep on this thread. */
    public void releaseThreadState() {
        executor.backend().releaseThreadState();
        idStores.releaseThreadState();
    }

    /** The lock store, as {@code distlock.backend} names it: {@code redis}, {@code zookeeper}, {@code jdbc}. */
    public String lockStoreName() {
        return settings.backend().name();
    }

    /** Why the lock store cannot serve locks now; empty when it can. For readiness checks. */
    public Optional<String> lockStoreProblem() {
        return executor.backend().problem();
    }

    /** The application stops: the engine's thread goes with it. */
    @PreDestroy
    void close() {
        locks.close();
        idStores.close();
    }

    /** The application's beans, for a backend that needs one of them (a DataSource). */
    private record Beans(Instance<Object> all) implements dev.distlock.spi.LockBackendProvider.Beans {
        @Override
        public <T> Optional<T> bean(Class<T> type) {
            Instance<T> candidates = all.select(type);
            return candidates.isResolvable() ? Optional.of(candidates.get()) : Optional.empty();
        }
    }

    /** Every {@link LockListener} bean of the application and of distlock (metrics), in turn, with the site. */
    /**
     * Every listener, each event in a loop of its own (not {@code forEach} with a lambda, whose one
     * shared call site the JIT inlines every listener of every event into: see {@code LockEvents}).
     */
    private record Listeners(List<LockListener> all, Event<LockLostEvent> lostEvents) implements LockListener {
        @Override
        public void acquired(String key, String site, LockMode mode, long waitNanos) {
            for (LockListener listener : all) {
                listener.acquired(key, site, mode, waitNanos);
            }
        }

        @Override
        public void released(String key, String site, LockMode mode, long heldNanos) {
            for (LockListener listener : all) {
                listener.released(key, site, mode, heldNanos);
            }
        }

        @Override
        public void timedOut(String key, String site, LockMode mode, long waitNanos) {
            for (LockListener listener : all) {
                listener.timedOut(key, site, mode, waitNanos);
            }
        }

        /** Also an asynchronous CDI event: observers never run on Redisson's I/O threads. */
        @Override
        public void lost(String key, String site, LockMode mode) {
            for (LockListener listener : all) {
                listener.lost(key, site, mode);
            }
            lostEvents.fireAsync(new LockLostEvent(key, mode, Instant.now()));
        }
    }
}
