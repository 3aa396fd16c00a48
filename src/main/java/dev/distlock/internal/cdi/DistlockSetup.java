package dev.distlock.internal.cdi;


import dev.distlock.LockDefinitionException;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.List;

/**
 * What a deployment of distlock knows, whichever kind of CDI extension gathered it: the lock
 * {@linkplain LockSpecs specs} of the beans, the {@linkplain IdDefinitions id generators} the
 * application injects, and the {@linkplain EngineSettings settings}. The portable extension
 * ({@link DistlockExtension}, full CDI) and the build compatible one ({@link DistlockBuildExtension},
 * CDI Lite) feed it the beans they see and fail the deployment with its {@linkplain #takeProblems()
 * problems}. distlock's beans get it injected.
 */
final class DistlockSetup {

    private final Problems problems = new Problems();
    private final LockSpecs specs = new LockSpecs(this::config, this::order, problems);
    private final IdDefinitions ids = new IdDefinitions(this::config, problems);
    private final EngineSettings settings = new EngineSettings();
    private volatile Config config;
    private volatile InterceptorOrder order;

    /** With the application's MicroProfile Config, taken when first needed. */
    DistlockSetup() {
    }

    LockSpecs specs() {
        return specs;
    }

    IdDefinitions ids() {
        return ids;
    }

    EngineSettings settings() {
        return settings;
    }

    /**
     * Where the lock interceptors sit ({@value InterceptorOrder#PRIORITY}), read once; a wrong value
     * is a problem, and the default stands meanwhile.
     */
    InterceptorOrder order() {
        InterceptorOrder current = order;
        if (current == null) {
            try {
                current = InterceptorOrder.read(config());
            } catch (LockDefinitionException e) {
                problems.add(e);
                current = InterceptorOrder.defaults(config());
            }
            order = current;
        }
        return current;
    }

    /** The order the container was built with (CDI Lite): the run-time configuration does not move it. */
    void fixOrder(InterceptorOrder built) {
        order = built;
    }

    void problem(LockDefinitionException problem) {
        problems.add(problem);
    }

    /**
     * A bean whose calls are combined ({@link dev.distlock.Combined}) must be normal-scoped: its
     * batch method is called through its contextual reference, on the leader's thread.
     */
    void combinedNeedsNormalScope(Class<?> beanClass, String scope, boolean normal) {
        if (normal) {
            return;
        }
        for (String site : specs.combinedMethods(beanClass)) {
            problems.add(new LockDefinitionException("@Combined on " + site + ": the bean " + beanClass.getName() + " is @" + scope
                    + "; a combined method's bean must be normal-scoped (@ApplicationScoped, for one), since its batch method"
                    + " is called through the bean's contextual reference"));
        }
    }

    /** Reads the settings and the id generators' definitions; anything wrong becomes a problem. */
    void readSettings() {
        ids.read();
        settings.read(config(), problems);
    }

    /** The problems found so far, handed over once. */
    List<LockDefinitionException> takeProblems() {
        return problems.take();
    }

    private Config config() {
        Config current = config;
        if (current == null) {
            current = ConfigProvider.getConfig();
            config = current;
        }
        return current;
    }
}
