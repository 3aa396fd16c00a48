package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.id.IdStrategy;
import org.eclipse.microprofile.config.Config;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The id generators the application injects, checked at deployment: one name is one generator, of
 * one kind and one strategy, and its settings ({@link IdDefinition}) are read and checked then.
 */
final class IdDefinitions {

    private static final System.Logger LOG = System.getLogger(IdDefinitions.class.getName());

    private final Map<String, IdStrategy> idStrategies = new ConcurrentHashMap<>();
    private final Map<String, IdDefinition> idDefinitions = new ConcurrentHashMap<>();
    private final Supplier<Config> config;
    private final Problems problems;

    IdDefinitions(Supplier<Config> config, Problems problems) {
        this.config = config;
        this.problems = problems;
    }

    /**
     * An {@code @GeneratedId} injection point: all of one name must agree on the strategy and on
     * the kind, {@link dev.distlock.id.DailySerials} (always {@link IdStrategy#DAILY_SERIAL}) or
     * {@code IdGenerator}/{@code long}.
     */
    void idInjectionPoint(String name, IdStrategy strategy, String where, boolean serials) {
        if (serials && strategy != IdStrategy.CONFIGURED && strategy != IdStrategy.DAILY_SERIAL) {
            problems.add(new LockDefinitionException("@GeneratedId(\"" + name + "\") DailySerials at " + where + " asks for " + strategy
                    + ", but DailySerials are always DAILY_SERIAL; remove strategy = " + strategy));
        } else if (!serials && strategy == IdStrategy.DAILY_SERIAL) {
            problems.add(new LockDefinitionException("@GeneratedId(\"" + name + "\") at " + where + " asks for DAILY_SERIAL, whose numbers"
                    + " are text such as 20261124-000042, not a long id; inject dev.distlock.id.DailySerials instead"));
            return;
        }
        // An id's injection point never asks for DAILY_SERIAL (refused above), so the strategy tells the kind.
        IdStrategy asking = serials ? IdStrategy.DAILY_SERIAL : strategy;
        idStrategies.merge(name, asking, (previous, asked) -> {
            if ((previous == IdStrategy.DAILY_SERIAL) != (asked == IdStrategy.DAILY_SERIAL)) {
                problems.add(new LockDefinitionException("@GeneratedId(\"" + name + "\") at " + where + " is injected as "
                        + (serials ? "DailySerials" : "an id") + " but another injection point of the same name as "
                        + (serials ? "an id" : "DailySerials") + "; one name is one generator, give them different names"));
                return previous;
            }
            if (previous == IdStrategy.CONFIGURED) {
                return asked;
            }
            if (asked != IdStrategy.CONFIGURED && asked != previous) {
                problems.add(new LockDefinitionException("@GeneratedId(\"" + name + "\") at " + where
                        + " asks for " + asked + " but another injection point of the same generator asks for "
                        + previous + "; one name is one generator"));
            }
            return previous;
        });
    }

    /** The names and strategies of the generators seen at injection points, as {@code name=STRATEGY}. */
    List<String> idInjections() {
        return idStrategies.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).sorted().toList();
    }

    /** Reads the definitions of the generators seen at injection points; anything wrong becomes a problem. */
    void read() {
        Config current = config.get();
        for (Map.Entry<String, IdStrategy> generator : idStrategies.entrySet()) {
            try {
                IdDefinition definition = IdDefinition.read(current, generator.getKey(), generator.getValue());
                definition.checkLayoutLifetime(Instant.now()).ifPresent(warning -> LOG.log(System.Logger.Level.WARNING, warning));
                idDefinitions.put(definition.name(), definition);
            } catch (LockDefinitionException e) {
                problems.add(e);
            }
        }
    }

    /** The generators seen at injection points, with their definitions. */
    Map<String, IdDefinition> idDefinitions() {
        return idDefinitions;
    }

    /** The settings of an id generator; read now if no injection point named it at deployment. */
    IdDefinition idDefinition(String name) {
        return idDefinition(name, IdStrategy.CONFIGURED);
    }

    /** The settings of a generator of the given kind ({@link IdStrategy#DAILY_SERIAL} for DailySerials). */
    IdDefinition idDefinition(String name, IdStrategy injected) {
        return idDefinitions.computeIfAbsent(name, n -> IdDefinition.read(config.get(), n, injected));
    }
}
