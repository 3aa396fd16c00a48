package dev.distlock.internal.cdi;



import dev.distlock.internal.id.DailySerialGenerator;
import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.internal.id.RangeRefused;
import dev.distlock.internal.id.SegmentIdGenerator;
import dev.distlock.spi.id.SegmentStore;
import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.id.DailySerials;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdGenerationException;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.id.Ids;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Reception;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.InjectionPoint;
import jakarta.inject.Inject;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One generator per name, made on first use and closed on undeploy (returning leased worker ids);
 * produces {@code @GeneratedId IdGenerator} and {@code @GeneratedId long}.
 */
@ApplicationScoped
public class IdGenerators {

    private final DistlockSetup extension;
    private final Instance<DataSource> dataSources;
    /** Where worker ids, clock floors and serials are kept: the lock backend decides ({@link LockEngine#idStore()}). */
    private final Instance<LockEngine> locks;
    /** A range refused because the segment store went back; the metrics count it where they exist. */
    private final Event<RangeRefused> rangesRefused;
    private final Map<String, IdGenerator> generators = new ConcurrentHashMap<>();
    private final Map<String, Ids.Serials> serials = new ConcurrentHashMap<>();
    /** The DataSource of each segment and daily serial generator made so far, for readiness. */
    private final Map<String, DataSource> storeDataSources = new ConcurrentHashMap<>();
    /** The DataSource each segment and daily serial generator's settings name, once looked up. */
    private final Map<String, DataSource> resolvedDataSources = new ConcurrentHashMap<>();

    @Inject
    IdGenerators(DistlockSetup extension, Instance<DataSource> dataSources,
                 Instance<LockEngine> locks, Event<RangeRefused> rangesRefused) {
        this.extension = extension;
        this.dataSources = dataSources;
        this.locks = locks;
        this.rangesRefused = rangesRefused;
    }

    /** For proxies only. */
    protected IdGenerators() {
        this.extension = null;
        this.dataSources = null;
        this.locks = null;
        this.rangesRefused = null;
    }

    @Produces
    @Dependent
    @GeneratedId
    IdGenerator generator(InjectionPoint injectionPoint) {
        return generator(nameOf(injectionPoint));
    }

    /** A fresh id for each injection: dependent and request-scoped beans get one per instance. */
    @Produces
    @Dependent
    @GeneratedId
    long nextId(InjectionPoint injectionPoint) {
        return generator(nameOf(injectionPoint)).nextId();
    }

    /** Date + the day's serial, e.g. {@code 20261124-000042}: {@code @Inject @GeneratedId("invoice") DailySerials}. */
    @Produces
    @Dependent
    @GeneratedId
    DailySerials dailySerials(InjectionPoint injectionPoint) {
        return dailySerials(nameOf(injectionPoint));
    }

    public IdGenerator generator(String name) {
        return generators.computeIfAbsent(name, this::create);
    }

    public DailySerials dailySerials(String name) {
        return serials.computeIfAbsent(name, this::createSerials);
    }

    private Ids.Serials createSerials(String name) {
        IdDefinition definition = extension.ids().idDefinition(name, IdStrategy.DAILY_SERIAL);
        if (definition.strategy() != IdStrategy.DAILY_SERIAL) {
            throw new IdGenerationException("'" + name + "' is an id generator (" + definition.strategy()
                    + "); DailySerials need a name of their own");
        }
        DataSource dataSource = dataSource(definition);
        storeDataSources.put(name, dataSource);
        SegmentStore ranges = JdbcSegmentStore.creatingTableOnFirstLease(dataSource, definition.table());
        return new DailySerialGenerator(name, locks.get().idStore().dayCounter(name, extension.settings().keyPrefix()), ranges,
                definition.serial());
    }

    private IdGenerator create(String name) {
        IdDefinition definition = extension.ids().idDefinition(name);
        if (definition.strategy() == IdStrategy.DAILY_SERIAL) {
            throw new IdGenerationException("Id generator '" + name + "' is configured DAILY_SERIAL, whose numbers are text such as"
                    + " 20261124-000042, not a long id; inject dev.distlock.id.DailySerials under this name");
        }
        return switch (definition.strategy()) {
            case SEGMENT -> new SegmentIdGenerator(name, segmentStore(definition), definition.segment(), rangesRefused::fire);
            default -> definition.workerId() == IdDefinition.AUTO_WORKER
                    ? SnowflakeGenerator.leased(name, definition.layout(), Clock.systemUTC(), definition.maxClockBackwardMillis(),
                            locks.get().workerLeases().orElseGet(() ->
                                    locks.get().idStore().leasedWorkers(extension.settings().keyPrefix(), definition.workerLeaseMillis())))
                    : definition.clockFloor()
                    ? SnowflakeGenerator.leased(name, definition.layout(), Clock.systemUTC(), definition.maxClockBackwardMillis(),
                            locks.get().idStore().fixedWorker(extension.settings().keyPrefix(), definition.workerId()))
                    : SnowflakeGenerator.fixed(name, definition.layout(), Clock.systemUTC(), definition.maxClockBackwardMillis(),
                            definition.workerId());
        };
    }

    /**
     * The table is created with the first lease, on the generator's own thread, not here: a
     * database that is down must not fail the injection (and with it every bean that injects the
     * generator), only {@code nextId()}, with the database's error as the cause.
     */
    private SegmentStore segmentStore(IdDefinition definition) {
        DataSource dataSource = dataSource(definition);
        storeDataSources.put(definition.name(), dataSource);
        return JdbcSegmentStore.creatingTableOnFirstLease(dataSource, definition.table());
    }

    /**
     * The configured JNDI name if one is set; otherwise the application's {@link DataSource} bean
     * if it has exactly one, otherwise {@value IdDefinition#DEFAULT_DATASOURCE}.
     */
    DataSource dataSource(IdDefinition definition) {
        // Looked up once per generator: as the application starts, then again when the generator is made.
        return resolvedDataSources.computeIfAbsent(definition.name(), name -> lookUpDataSource(definition));
    }

    private DataSource lookUpDataSource(IdDefinition definition) {
        if (definition.dataSource().isEmpty() && dataSources.isResolvable()) {
            return dataSources.get();
        }
        String jndiName = definition.dataSource().orElse(IdDefinition.DEFAULT_DATASOURCE);
        try {
            return (DataSource) new InitialContext().lookup(jndiName);
        } catch (NamingException | RuntimeException e) {
            long beans = definition.dataSource().isEmpty() && dataSources.isAmbiguous() ? dataSources.stream().count() : 0;
            String ambiguity = beans > 1 ? "the application has " + beans + " DataSource beans, so none is chosen, and " : "";
            throw new IdGenerationException("Id generator '" + definition.name() + "' (" + definition.strategy() + ") needs a DataSource, but "
                    + ambiguity + jndiName + " cannot be looked up (" + e.getClass().getSimpleName() + "). Set distlock.id."
                    + definition.name() + ".datasource to the JNDI name of one, or produce " + (ambiguity.isEmpty() ? "a" : "exactly one")
                    + " javax.sql.DataSource bean.", e);
        }
    }

    /**
     * Looks up the DataSource of every segment and daily serial generator the application injects
     * as it starts, so that a JNDI name that cannot be looked up fails the start, not the first id.
     * Except the application's own names ({@code java:app/...}, {@code java:module/...}, e.g. from
     * its {@code @DataSourceDefinition}): Payara binds them only after CDI has started, so they are
     * looked up when the generator is first injected.
     */
    void checkStoresAtStart(@Observes @Initialized(ApplicationScoped.class) Object started) {
        for (IdDefinition definition : extension.ids().idDefinitions().values()) {
            boolean applicationsOwn = definition.dataSource()
                    .filter(name -> name.startsWith("java:app/") || name.startsWith("java:module/")).isPresent();
            if (definition.needsDataSource() && !applicationsOwn) {
                dataSource(definition);
            }
        }
    }

    /** When a Snowflake generator's layout runs out, and from when distlock warns about it. */
    public record LayoutLife(String generator, java.time.Instant end, java.time.Instant warnFrom) {
    }

    /** The layouts of the Snowflake generators the application uses, by generator name. */
    public java.util.List<LayoutLife> snowflakeLayouts() {
        return extension.ids().idDefinitions().values().stream()
                .filter(definition -> definition.strategy() == IdStrategy.SNOWFLAKE)
                .map(definition -> new LayoutLife(definition.name(), definition.layout().exhaustedAt(),
                        definition.layout().exhaustedAt().minus(definition.layoutWarning())))
                .sorted(java.util.Comparator.comparing(LayoutLife::generator))
                .toList();
    }

    /** The names of the segment generators the application uses. */
    public java.util.List<String> segmentGenerators() {
        return extension.ids().idDefinitions().values().stream()
                .filter(definition -> definition.strategy() == IdStrategy.SEGMENT)
                .map(IdDefinition::name)
                .sorted()
                .toList();
    }

    static String nameOf(InjectionPoint injectionPoint) {
        return generatedId(injectionPoint).value();
    }

    static GeneratedId generatedId(InjectionPoint injectionPoint) {
        for (java.lang.annotation.Annotation qualifier : injectionPoint.getQualifiers()) {
            if (qualifier instanceof GeneratedId generatedId) {
                return generatedId;
            }
        }
        throw new IllegalStateException("not a @GeneratedId injection point: " + injectionPoint);
    }

    /**
     * For readiness: each segment generator in use whose database does not answer, or which refused
     * a range because the database went back (until a range above it comes), with why. Generators
     * that were never used are not checked.
     */
    public Map<String, String> storeProblems() {
        // The DataSource each generator really uses, resolved once when it was made: no JNDI per probe.
        Map<String, String> problems = new java.util.TreeMap<>();
        storeDataSources.forEach((name, dataSource) -> {
            try (java.sql.Connection connection = dataSource.getConnection()) {
                if (!connection.isValid(2)) {
                    problems.put(name, "the database connection is not valid");
                }
            } catch (SQLException | RuntimeException e) {
                problems.put(name, e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        });
        generators.forEach((name, generator) -> {
            if (generator instanceof SegmentIdGenerator segments) {
                segments.refusal().ifPresent(refused -> problems.merge(name, refused.message(), (down, wentBack) -> down + "; " + wentBack));
            }
        });
        return problems;
    }

    /**
     * Returns worker ids before any application-scoped bean is destroyed: the container destroys
     * them in no defined order, and the application's Redis client may otherwise be shut down
     * first, leaving the worker ids leased until their TTL runs out.
     */
    void closeBeforeShutdown(@Observes(notifyObserver = Reception.IF_EXISTS) @BeforeDestroyed(ApplicationScoped.class) Object event) {
        close();
    }

    @PreDestroy
    void close() {
        for (IdGenerator generator : generators.values()) {
            if (generator instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception ignored) {
                    // undeploying: a worker id that is not returned frees itself when its lease ends
                }
            }
        }
        serials.values().forEach(Ids.Serials::close);
        generators.clear();
        serials.clear();
        storeDataSources.clear();
        resolvedDataSources.clear();
        if (locks.isResolvable()) {
            locks.get().releaseThreadState(); // returning worker ids talked to the store from the server's thread
        }
    }
}
