package dev.distlock.cdi;

import dev.distlock.DistributedLocks;
import dev.distlock.LockDefinitionException;
import dev.distlock.core.Durations;
import dev.distlock.LeaseProof;
import dev.distlock.LocalHandoff;
import dev.distlock.id.IdStrategy;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a deployment of distlock knows, whichever kind of CDI extension gathered it: the
 * {@link LockSpec} of every locked method, the id generators the application injects, and the
 * settings. The portable extension ({@link DistlockExtension}, full CDI) and the build compatible
 * one ({@link DistlockBuildExtension}, CDI Lite) feed it the beans they see; anything wrong is
 * collected as a problem with a message that names the class, the method, the member and the
 * value, and the extension fails the deployment with it. The beans get it injected.
 */
final class DistlockSetup {

    static final String KEY_PREFIX = "distlock.key-prefix";
    static final String ANSWER_GRACE = "distlock.answer-grace";
    static final String HANDOFF_MAX = "distlock.handoff.max-count";
    static final String HANDOFF_TIME = "distlock.handoff.max-time";
    static final String VERIFY_BEFORE_COMMIT = "distlock.transaction.verify-before-commit";
    static final String LEASE_PROOF = "distlock.transaction.lease-proof";

    /** distlock's own beans; the interceptors carry the lock annotations as bindings. */
    static final List<Class<?>> OWN_BEANS = List.of(LockInterception.class, RedisConnection.class, IdGenerators.class,
            LockedInterceptor.class, ReadLockedInterceptor.class, WriteLockedInterceptor.class,
            LockedCommitGuard.class, ReadLockedCommitGuard.class, WriteLockedCommitGuard.class);

    /** The interceptors that take the locks (the commit guards share their bindings but take none). */
    static final List<Class<?>> LOCK_INTERCEPTORS = List.of(LockedInterceptor.class, ReadLockedInterceptor.class, WriteLockedInterceptor.class);

    private static final System.Logger LOG = System.getLogger(DistlockSetup.class.getName());

    /** Per bean class: a method inherited by two beans is locked as each bean's class says. */
    private final Map<BeanMethod, LockSpec> specs = new ConcurrentHashMap<>();
    /** Added to from container lifecycle events, which Weld may fire from several deployment threads. */
    private final List<LockDefinitionException> problems = Collections.synchronizedList(new ArrayList<>());
    private final Set<Class<?>> checkedInterfaces = ConcurrentHashMap.newKeySet();
    private final Map<String, IdStrategy> idStrategies = new ConcurrentHashMap<>();
    private final Map<String, IdDefinition> idDefinitions = new ConcurrentHashMap<>();
    private volatile Config config;
    private volatile String keyPrefix = DistributedLocks.DEFAULT_KEY_PREFIX;
    private volatile Duration answerGrace = DistributedLocks.DEFAULT_ANSWER_GRACE;
    private volatile LocalHandoff handoff = LocalHandoff.DEFAULT;
    private volatile boolean verifyBeforeCommit = true;
    private volatile LeaseProof leaseProof = LeaseProof.FENCED;
    private volatile BackendSettings backend = BackendSettings.REDIS;

    /** With the application's MicroProfile Config, taken when first needed. */
    DistlockSetup() {
    }

    /** The optional observability beans, by class name: registered only where the server has their APIs. */
    static List<String> observabilityBeans() {
        List<String> names = new ArrayList<>();
        if (present("org.eclipse.microprofile.health.HealthCheck")) {
            names.add("dev.distlock.cdi.observability.RedisReadiness");
            names.add("dev.distlock.cdi.observability.IdStoreReadiness");
            names.add("dev.distlock.cdi.observability.IdLayoutReadiness");
        }
        if (present("org.eclipse.microprofile.metrics.MetricRegistry")) {
            names.add("dev.distlock.cdi.observability.LockMetrics");
        }
        if (present("io.opentelemetry.api.OpenTelemetry")) {
            names.add("dev.distlock.cdi.observability.LockTelemetry");
        }
        return names;
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, DistlockSetup.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    static boolean own(Class<?> beanClass) {
        return OWN_BEANS.contains(beanClass) || beanClass.getName().startsWith("dev.distlock.cdi.observability.");
    }

    /**
     * Resolves the locks of a bean class's methods; a problem for each that is wrong.
     *
     * @return one instance of each lock annotation that governs a method of the class, as the
     *         container sees its interceptor bindings; empty if no method is locked
     */
    Collection<Annotation> inspect(Class<?> beanClass) {
        if (own(beanClass)) {
            return List.of();
        }
        interfacesOf(beanClass).forEach(this::checkInterface);
        LockSpecFactory factory = new LockSpecFactory(config());
        Map<Class<? extends Annotation>, Annotation> bindings = new java.util.LinkedHashMap<>();
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
                bindings.putIfAbsent(annotation.get().annotationType(), annotation.get());
            } catch (LockDefinitionException e) {
                problems.add(e);
            }
        }
        return List.copyOf(bindings.values());
    }

    /** Whether a class has a lock annotation on it or on one of its methods or its superclasses'. */
    static boolean carriesLocks(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            if (lockedOn(c.getDeclaredAnnotations())) {
                return true;
            }
            for (Method method : c.getDeclaredMethods()) {
                if (lockedOnMethod(method)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Reports an interface that carries lock annotations, once: implementations do not inherit them. */
    void checkInterface(Class<?> type) {
        if (type.isInterface() && checkedInterfaces.add(type)) {
            lockedInterface(type).ifPresent(problems::add);
        }
    }

    private static Optional<LockDefinitionException> lockedInterface(Class<?> type) {
        for (Method method : type.getDeclaredMethods()) {
            if (lockedOnMethod(method)) {
                return Optional.of(new LockDefinitionException(describeLocks(method.getAnnotations()) + " on " + LockSpecFactory.site(method)
                        + ": an interface's method annotations are not inherited by the classes that implement it, so no call would be"
                        + " locked; put the annotation on the implementing bean's method"));
            }
        }
        if (lockedOn(type.getDeclaredAnnotations())) {
            return Optional.of(new LockDefinitionException(describeLocks(type.getDeclaredAnnotations()) + " on interface " + type.getName()
                    + ": annotations on an interface are not inherited by the classes that implement it, so no call would be locked;"
                    + " put the annotation on the implementing bean class"));
        }
        return Optional.empty();
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

    void problem(LockDefinitionException problem) {
        problems.add(problem);
    }

    /** Reads the settings and the id generators' definitions; anything wrong becomes a problem. */
    void readSettings() {
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
            String prefix = current.getOptionalValue(KEY_PREFIX, String.class).orElse(DistributedLocks.DEFAULT_KEY_PREFIX).strip();
            if (prefix.isEmpty() || prefix.contains("{") || prefix.contains("}")) {
                throw new LockDefinitionException("Config " + KEY_PREFIX + "=" + prefix + ": must not be blank nor contain '{' or '}'");
            }
            keyPrefix = prefix;
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
                String text = value.strip().toLowerCase(Locale.ROOT);
                if (!text.equals("true") && !text.equals("false")) {
                    throw new LockDefinitionException("Config " + VERIFY_BEFORE_COMMIT + "=" + value + ": must be true or false");
                }
                return Boolean.parseBoolean(text);
            }).orElse(true);
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
        try {
            leaseProof = current.getOptionalValue(LEASE_PROOF, String.class).map(value -> {
                String text = value.strip().toUpperCase(Locale.ROOT);
                for (LeaseProof proof : LeaseProof.values()) {
                    if (proof.name().equals(text)) {
                        return proof;
                    }
                }
                throw new LockDefinitionException("Config " + LEASE_PROOF + "=" + value + ": must be none, fenced or all");
            }).orElse(LeaseProof.FENCED);
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
        try {
            handoff = readHandoff(current);
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
        try {
            backend = BackendSettings.read(current);
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
        try {
            RedisSettings.redissonConfig(current);
        } catch (LockDefinitionException e) {
            problems.add(e);
        }
    }

    /** The problems found so far, handed over once. */
    List<LockDefinitionException> takeProblems() {
        synchronized (problems) {
            List<LockDefinitionException> taken = List.copyOf(problems);
            problems.clear();
            return taken;
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
        return idDefinitions.computeIfAbsent(name, n -> IdDefinition.read(config(), n, injected));
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

    LeaseProof leaseProof() {
        return leaseProof;
    }

    /** Where the locks live: {@code distlock.backend} and its settings. */
    BackendSettings backend() {
        return backend;
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
        return lockedOn(method.getDeclaredAnnotations());
    }

    private static boolean lockedOn(Annotation[] annotations) {
        for (Annotation annotation : annotations) {
            if (LockAnnotation.TYPES.contains(annotation.annotationType())) {
                return true;
            }
        }
        return false;
    }

    private static String describeLocks(Annotation[] annotations) {
        return Arrays.stream(annotations).filter(a -> LockAnnotation.TYPES.contains(a.annotationType()))
                .map(a -> "@" + a.annotationType().getSimpleName()).reduce((a, b) -> a + " " + b).orElse("");
    }

    private static Set<Class<?>> interfacesOf(Class<?> type) {
        Set<Class<?>> all = new java.util.LinkedHashSet<>();
        java.util.ArrayDeque<Class<?>> pending = new java.util.ArrayDeque<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            pending.addAll(Arrays.asList(c.getInterfaces()));
        }
        while (!pending.isEmpty()) {
            Class<?> next = pending.poll();
            if (all.add(next)) {
                pending.addAll(Arrays.asList(next.getInterfaces()));
            }
        }
        return all;
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
                String signature = method.getName() + Arrays.toString(method.getParameterTypes());
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
