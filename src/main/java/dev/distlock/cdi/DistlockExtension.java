package dev.distlock.cdi;

import dev.distlock.DistributedLocks;
import dev.distlock.LockDefinitionException;
import dev.distlock.core.Durations;
import dev.distlock.core.LocalHandoff;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdStrategy;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.AmbiguousResolutionException;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.InjectionPoint;
import jakarta.enterprise.inject.spi.ProcessInjectionPoint;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Registers the interceptors and checks every lock at deployment: each locked method's
 * annotation, configuration overrides and key templates are resolved into a {@link LockSpec}
 * once, and anything wrong fails the deployment with a message that names the class, the method,
 * the member and the value. The Redis settings are checked here too; Redis itself is not
 * contacted, so the application deploys while Redis is down.
 */
public class DistlockExtension implements Extension {

    static final String KEY_PREFIX = "distlock.key-prefix";
    static final String ANSWER_GRACE = "distlock.answer-grace";
    static final String HANDOFF_MAX = "distlock.handoff.max-count";
    static final String HANDOFF_TIME = "distlock.handoff.max-time";
    static final String VERIFY_BEFORE_COMMIT = "distlock.transaction.verify-before-commit";

    /** The beans this extension adds; the interceptors carry the lock annotations as bindings. */
    private static final List<Class<?>> OWN_BEANS = List.of(LockInterception.class, RedisConnection.class, IdGenerators.class,
            LockedInterceptor.class, ReadLockedInterceptor.class, WriteLockedInterceptor.class,
            LockedCommitGuard.class, ReadLockedCommitGuard.class, WriteLockedCommitGuard.class);

    private static final System.Logger LOG = System.getLogger(DistlockExtension.class.getName());

    /** Per bean class: a method inherited by two beans is locked as each bean's class says. */
    private final Map<BeanMethod, LockSpec> specs = new ConcurrentHashMap<>();
    /** Added to from container lifecycle events, which Weld may fire from several deployment threads. */
    private final List<Throwable> problems = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, IdStrategy> idStrategies = new ConcurrentHashMap<>();
    private final Map<String, IdDefinition> idDefinitions = new ConcurrentHashMap<>();
    private volatile Config config;
    private String keyPrefix = DistributedLocks.DEFAULT_KEY_PREFIX;
    private Duration answerGrace = DistributedLocks.DEFAULT_ANSWER_GRACE;
    private LocalHandoff handoff = LocalHandoff.DEFAULT;
    private boolean verifyBeforeCommit = true;

    void registerBeans(@Observes BeforeBeanDiscovery discovery, BeanManager beans) {
        for (Class<?> type : OWN_BEANS) {
            discovery.addAnnotatedType(beans.createAnnotatedType(type), DistlockExtension.class.getName() + "." + type.getSimpleName());
        }
        // Observability only where the server has the APIs; the classes are not even loaded otherwise.
        if (present("org.eclipse.microprofile.health.HealthCheck")) {
            addByName(discovery, beans, "dev.distlock.cdi.observability.RedisReadiness");
            addByName(discovery, beans, "dev.distlock.cdi.observability.IdStoreReadiness");
        }
        if (present("org.eclipse.microprofile.metrics.MetricRegistry")) {
            addByName(discovery, beans, "dev.distlock.cdi.observability.LockMetrics");
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, DistlockExtension.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    private static void addByName(BeforeBeanDiscovery discovery, BeanManager beans, String className) {
        try {
            Class<?> type = Class.forName(className, false, DistlockExtension.class.getClassLoader());
            discovery.addAnnotatedType(beans.createAnnotatedType(type), DistlockExtension.class.getName() + "." + type.getSimpleName());
        } catch (ClassNotFoundException | LinkageError e) {
            LOG.log(System.Logger.Level.WARNING, "distlock: " + className + " not registered: " + e);
        }
    }

    void resolveLocks(@Observes ProcessManagedBean<?> bean) {
        Class<?> beanClass = bean.getAnnotatedBeanClass().getJavaClass();
        if (OWN_BEANS.contains(beanClass)) {
            return;
        }
        LockSpecFactory factory = new LockSpecFactory(config());
        for (Method method : businessMethods(beanClass)) {
            try {
                Optional<Annotation> annotation = LockSpecFactory.governing(beanClass, method);
                if (annotation.isEmpty()) {
                    continue;
                }
                int modifiers = method.getModifiers();
                if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers)) {
                    if (lockedOnMethod(method)) {
                        problems.add(new LockDefinitionException("@" + annotation.get().annotationType().getSimpleName()
                                + " on " + LockSpecFactory.site(method) + ": " + (Modifier.isStatic(modifiers) ? "static" : "private")
                                + " methods are not intercepted, so the lock would never be taken; make the method non-private and non-static"));
                    }
                    continue;
                }
                specs.put(new BeanMethod(beanClass, method), factory.build(beanClass, method, annotation.get()));
            } catch (LockDefinitionException e) {
                problems.add(e);
            }
        }
    }

    /** Weld may fire these events from several deployment threads: the strategy is merged atomically. */
    void collectIdGenerators(@Observes ProcessInjectionPoint<?, ?> event) {
        InjectionPoint point = event.getInjectionPoint();
        for (Annotation qualifier : point.getQualifiers()) {
            if (qualifier instanceof GeneratedId generatedId) {
                idStrategies.merge(generatedId.value(), generatedId.strategy(), (previous, asked) -> {
                    if (previous == IdStrategy.CONFIGURED) {
                        return asked;
                    }
                    if (asked != IdStrategy.CONFIGURED && asked != previous) {
                        problems.add(new LockDefinitionException("@GeneratedId(\"" + generatedId.value() + "\") at " + point
                                + " asks for " + asked + " but another injection point of the same generator asks for "
                                + previous + "; one name is one generator"));
                    }
                    return previous;
                });
            }
        }
    }

    void reportProblems(@Observes AfterBeanDiscovery discovery) {
        Config current = config();
        for (Map.Entry<String, IdStrategy> generator : idStrategies.entrySet()) {
            try {
                IdDefinition definition = IdDefinition.read(current, generator.getKey(), generator.getValue());
                definition.checkLayoutLifetime(Instant.now()).ifPresent(warning -> LOG.log(System.Logger.Level.WARNING, warning));
                idDefinitions.put(definition.name(), definition);
            } catch (LockDefinitionException e) {
                problems.add(e);
            }
        }
        try {
            keyPrefix = current.getOptionalValue(KEY_PREFIX, String.class).orElse(DistributedLocks.DEFAULT_KEY_PREFIX).strip();
            if (keyPrefix.isEmpty() || keyPrefix.contains("{") || keyPrefix.contains("}")) {
                throw new LockDefinitionException("Config " + KEY_PREFIX + "=" + keyPrefix + ": must not be blank nor contain '{' or '}'");
            }
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
        try {
            answerGrace = current.getOptionalValue(ANSWER_GRACE, String.class)
                    .map(value -> Duration.ofMillis(positiveMillis(ANSWER_GRACE, value)))
                    .orElse(DistributedLocks.DEFAULT_ANSWER_GRACE);
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
        try {
            verifyBeforeCommit = current.getOptionalValue(VERIFY_BEFORE_COMMIT, String.class).map(value -> {
                String text = value.strip().toLowerCase(java.util.Locale.ROOT);
                if (!text.equals("true") && !text.equals("false")) {
                    throw new LockDefinitionException("Config " + VERIFY_BEFORE_COMMIT + "=" + value + ": must be true or false");
                }
                return Boolean.parseBoolean(text);
            }).orElse(true);
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
        try {
            handoff = readHandoff(current);
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
        try {
            RedisSettings.redissonConfig(current);
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
        problems.forEach(discovery::addDefinitionError);
        problems.clear();
    }

    /**
     * Checks, as {@link IdGenerators#dataSource} will choose: a generator without a configured
     * JNDI name uses the application's DataSource bean when exactly one resolves, otherwise JNDI.
     */
    void checkIdStores(@Observes AfterDeploymentValidation validation, BeanManager beans) {
        Set<Bean<?>> dataSourceBeans = beans.getBeans(DataSource.class);
        boolean dataSourceBean = resolvable(beans, dataSourceBeans);
        for (IdDefinition definition : idDefinitions.values()) {
            if (definition.strategy() != IdStrategy.SEGMENT || (definition.dataSource().isEmpty() && dataSourceBean)) {
                continue;
            }
            String jndiName = definition.dataSource().orElse(IdDefinition.DEFAULT_DATASOURCE);
            try {
                new InitialContext().lookup(jndiName);
            } catch (NamingException | RuntimeException e) {
                String ambiguity = definition.dataSource().isEmpty() && dataSourceBeans.size() > 1
                        ? "the application has " + dataSourceBeans.size() + " DataSource beans, so none is chosen, and " : "";
                validation.addDeploymentProblem(new LockDefinitionException("Id generator '" + definition.name()
                        + "' (SEGMENT) needs a DataSource, but " + ambiguity + jndiName + " cannot be looked up ("
                        + e.getClass().getSimpleName() + "). Set distlock.id." + definition.name()
                        + ".datasource to the JNDI name of one, or produce " + (ambiguity.isEmpty() ? "a" : "exactly one")
                        + " javax.sql.DataSource bean."));
            }
        }
    }

    private static boolean resolvable(BeanManager beans, Set<Bean<?>> candidates) {
        try {
            return beans.resolve(candidates) != null;
        } catch (AmbiguousResolutionException e) {
            return false;
        }
    }

    /** The settings of an id generator; read now if no injection point named it at deployment. */
    IdDefinition idDefinition(String name) {
        return idDefinitions.computeIfAbsent(name, n -> IdDefinition.read(config(), n, IdStrategy.CONFIGURED));
    }

    /** The spec of a locked method of a bean class; resolved now if it was not seen at deployment. */
    LockSpec spec(Class<?> beanClass, Method method) {
        BeanMethod key = new BeanMethod(beanClass, method);
        LockSpec spec = specs.get(key);
        if (spec != null) {
            return spec;
        }
        return specs.computeIfAbsent(key, absent -> {
            Annotation annotation = LockSpecFactory.governing(beanClass, method).orElseThrow(() ->
                    new LockDefinitionException("No lock annotation found for " + LockSpecFactory.site(method)));
            return new LockSpecFactory(config()).build(beanClass, method, annotation);
        });
    }

    /** The spec of a locked method of the bean class that declares it. */
    LockSpec spec(Method method) {
        return spec(method.getDeclaringClass(), method);
    }

    String keyPrefix() {
        return keyPrefix;
    }

    Duration answerGrace() {
        return answerGrace;
    }

    LocalHandoff handoff() {
        return handoff;
    }

    boolean verifyBeforeCommit() {
        return verifyBeforeCommit;
    }

    private static LocalHandoff readHandoff(Config config) {
        int maxCount = config.getOptionalValue(HANDOFF_MAX, String.class).map(value -> {
            try {
                int count = Integer.parseInt(value.strip());
                if (count < 0) {
                    throw new NumberFormatException();
                }
                return count;
            } catch (NumberFormatException e) {
                throw new LockDefinitionException("Config " + HANDOFF_MAX + "=" + value
                        + ": must be a whole number >= 0 (0 turns local handoff off)");
            }
        }).orElse(LocalHandoff.DEFAULT.maxHandoffs());
        Duration maxTime = config.getOptionalValue(HANDOFF_TIME, String.class)
                .map(value -> Duration.ofMillis(positiveMillis(HANDOFF_TIME, value)))
                .orElse(LocalHandoff.DEFAULT.maxTime());
        return new LocalHandoff(maxCount, maxTime);
    }

    org.redisson.config.Config redissonConfig() {
        return RedisSettings.redissonConfig(config());
    }

    String redisDescription() {
        return RedisSettings.describe(config());
    }

    private Config config() {
        Config current = config;
        if (current == null) {
            current = ConfigProvider.getConfig();
            config = current;
        }
        return current;
    }

    private static long positiveMillis(String key, String value) {
        try {
            long millis = Durations.parseMillis(value);
            if (millis <= 0) {
                throw new IllegalArgumentException("must be positive");
            }
            return millis;
        } catch (IllegalArgumentException e) {
            throw new LockDefinitionException("Config " + key + "=" + value + ": " + e.getMessage());
        }
    }

    private static boolean lockedOnMethod(Method method) {
        for (Annotation annotation : method.getAnnotations()) {
            if (LockAnnotation.TYPES.contains(annotation.annotationType())) {
                return true;
            }
        }
        return false;
    }

    /** Every method a call could be intercepted on, most derived first, each signature once. */
    private static List<Method> businessMethods(Class<?> beanClass) {
        List<Method> methods = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method method : c.getDeclaredMethods()) {
                if (method.isBridge() || method.isSynthetic()) {
                    continue;
                }
                String signature = method.getName() + java.util.Arrays.toString(method.getParameterTypes());
                if (seen.add(signature)) {
                    methods.add(method);
                }
            }
        }
        return methods;
    }

    private record BeanMethod(Class<?> beanClass, Method method) {
    }
}
