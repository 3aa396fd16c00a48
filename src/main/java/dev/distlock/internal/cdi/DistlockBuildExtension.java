package dev.distlock.internal.cdi;

import dev.distlock.Combined;
import dev.distlock.LockDefinitionException;
import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import dev.distlock.id.DailySerials;
import dev.distlock.id.GeneratedId;
import dev.distlock.id.IdStrategy;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.build.compatible.spi.BeanInfo;
import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.ClassConfig;
import jakarta.enterprise.inject.build.compatible.spi.Discovery;
import jakarta.enterprise.inject.build.compatible.spi.Enhancement;
import jakarta.enterprise.inject.build.compatible.spi.InjectionPointInfo;
import jakarta.enterprise.inject.build.compatible.spi.Messages;
import jakarta.enterprise.inject.build.compatible.spi.Parameters;
import jakarta.enterprise.inject.build.compatible.spi.Registration;
import jakarta.enterprise.inject.build.compatible.spi.ScannedClasses;
import jakarta.enterprise.inject.build.compatible.spi.SkipIfPortableExtensionPresent;
import jakarta.enterprise.inject.build.compatible.spi.Synthesis;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticBeanCreator;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticComponents;
import jakarta.enterprise.inject.build.compatible.spi.Validation;
import jakarta.enterprise.lang.model.AnnotationInfo;
import jakarta.enterprise.lang.model.AnnotationMember;
import jakarta.enterprise.lang.model.declarations.ClassInfo;
import jakarta.enterprise.lang.model.types.Type;
import jakarta.inject.Singleton;

import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * distlock in CDI Lite (Quarkus): the same beans, checks and messages as {@link DistlockExtension},
 * through the build compatible extension API. The checks run when the container is built (at build
 * time on Quarkus, with the build's configuration) and again when the application starts (with its
 * run-time configuration), so a bad template or setting fails the build or the start, never a call.
 * Where the portable extension runs (full CDI), this one is skipped: never both.
 */
@SkipIfPortableExtensionPresent(DistlockExtension.class)
public class DistlockBuildExtension implements BuildCompatibleExtension {

    static final String LOCKED_CLASSES = "lockedClasses";
    static final String ID_INJECTIONS = "idInjections";
    /** The interceptors' order as the build fixed it: the lock's priority, then Fault Tolerance's. */
    static final String ORDER = "interceptorOrder";

    private final DistlockSetup setup = new DistlockSetup();
    /** Classes that carry lock annotations, and whether a class bean is (or extends) them. */
    private final Map<String, Boolean> annotatedTypes = new TreeMap<>();
    private final Set<String> lockedBeans = new TreeSet<>();

    @Discovery
    public void registerBeans(ScannedClasses scanned) {
        OwnBeans.ALWAYS.forEach(type -> scanned.add(type.getName()));
        OwnBeans.observability().forEach(scanned::add);
    }

    /** {@code distlock.interceptor.priority} moves the lock in the chain; on Quarkus, as the build reads it. */
    @Enhancement(types = {LockedInterceptor.class, ReadLockedInterceptor.class, WriteLockedInterceptor.class})
    public void orderLocks(ClassConfig type) {
        int priority = setup.order().lock();
        if (priority != InterceptorOrder.DEFAULT) {
            type.removeAnnotation(annotation -> annotation.name().equals(Priority.class.getName()));
            type.addAnnotation(new InterceptorOrder.PriorityLiteral(priority));
        }
    }

    @Enhancement(types = Object.class, withSubtypes = true, withAnnotations = {Locked.class, ReadLocked.class, WriteLocked.class})
    public void seeLockedTypes(ClassInfo type) {
        Class<?> javaClass = load(type.name());
        if (OwnBeans.own(javaClass)) {
            return;
        }
        setup.specs().checkInterface(javaClass);
        if (!javaClass.isInterface() && !javaClass.isAnnotation() && !Modifier.isAbstract(javaClass.getModifiers())) {
            annotatedTypes.putIfAbsent(javaClass.getName(), false);
        }
    }

    @Registration(types = Object.class)
    public void resolveLocks(BeanInfo bean) {
        if (bean.isClassBean() && carriesLocks(bean.declaringClass())) {
            Class<?> beanClass = load(bean.declaringClass().name());
            for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
                annotatedTypes.computeIfPresent(c.getName(), (type, seen) -> true);
            }
            if (!setup.specs().inspect(beanClass).isEmpty()) {
                lockedBeans.add(beanClass.getName());
                setup.combinedNeedsNormalScope(beanClass, bean.scope().annotation().simpleName(), bean.scope().isNormal());
            }
        } else if (bean.isProducerMethod() || bean.isProducerField()) {
            Type produced = bean.isProducerMethod() ? bean.producerMethod().returnType() : bean.producerField().type();
            if (produced.isClass() && carriesLocks(produced.asClass().declaration())) {
                Class<?> type = load(produced.asClass().declaration().name());
                if (!OwnBeans.own(type) && LockSpecs.carriesLocks(type)) {
                    setup.problem(new LockDefinitionException(type.getName() + " carries lock annotations but the producer "
                            + bean.declaringClass().name() + "." + (bean.isProducerMethod() ? bean.producerMethod().name()
                            : bean.producerField().name()) + " makes its instances, and the container does not intercept what a"
                            + " producer returns, so its calls would run unlocked; make " + type.getSimpleName()
                            + " a bean (a bean-defining annotation such as @ApplicationScoped) and inject it instead of producing it"));
                }
            }
        }
        for (InjectionPointInfo point : bean.injectionPoints()) {
            for (AnnotationInfo qualifier : point.qualifiers()) {
                if (qualifier.name().equals(GeneratedId.class.getName())) {
                    String name = qualifier.hasMember("value") ? qualifier.member("value").asString() : "default";
                    AnnotationMember strategy = qualifier.hasMember("strategy") ? qualifier.member("strategy") : null;
                    boolean serials = point.type().isClass() && point.type().asClass().declaration().name().equals(DailySerials.class.getName());
                    setup.ids().idInjectionPoint(name, strategy == null ? IdStrategy.CONFIGURED : IdStrategy.valueOf(strategy.asEnumConstant()),
                            point.declaration() + " of " + bean.declaringClass().name(), serials);
                }
            }
        }
    }

    @Synthesis
    public void registerSetup(SyntheticComponents components) {
        components.addBean(DistlockSetup.class)
                .type(DistlockSetup.class)
                .scope(Singleton.class)
                .withParam(LOCKED_CLASSES, lockedBeans.toArray(String[]::new))
                .withParam(ID_INJECTIONS, setup.ids().idInjections().toArray(String[]::new))
                .withParam(ORDER, new int[] {setup.order().lock(), setup.order().faultTolerance()})
                .createWith(RuntimeSetup.class);
    }

    @Validation
    public void reportProblems(Messages messages) {
        annotatedTypes.forEach((type, bean) -> {
            if (!bean) {
                setup.problem(new LockDefinitionException(type + " carries lock annotations but is not a bean the container"
                        + " intercepts (not a bean, vetoed, or only created with new), so its calls would run unlocked; give it a"
                        + " bean-defining annotation such as @ApplicationScoped and inject it"));
            }
        });
        setup.readSettings();
        setup.takeProblems().forEach(messages::error);
    }

    /**
     * Whether a class, its superclasses or its interfaces carry a lock annotation (or
     * {@link Combined}, which needs one), read from the
     * container's model: only those classes are loaded (the container's generated classes cannot be).
     */
    private static boolean carriesLocks(ClassInfo type) {
        java.util.ArrayDeque<ClassInfo> pending = new java.util.ArrayDeque<>(List.of(type));
        Set<String> seen = new java.util.HashSet<>();
        while (!pending.isEmpty()) {
            ClassInfo next = pending.poll();
            if (next == null || next.name().equals(Object.class.getName()) || !seen.add(next.name())) {
                continue;
            }
            if (LockAnnotation.TYPES.stream().anyMatch(next::hasAnnotation) || next.methods().stream().anyMatch(m ->
                    m.hasAnnotation(Combined.class) || LockAnnotation.TYPES.stream().anyMatch(m::hasAnnotation))) {
                return true;
            }
            if (next.superClassDeclaration() != null) {
                pending.add(next.superClassDeclaration());
            }
            pending.addAll(next.superInterfacesDeclarations());
        }
        return false;
    }

    private static Class<?> load(String name) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try {
            return Class.forName(name, false, loader != null ? loader : DistlockBuildExtension.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new LockDefinitionException("distlock cannot load " + name + " to check its locks: " + e);
        }
    }

    /**
     * Makes the setup when the application starts, from what the build saw and the run-time
     * configuration; anything wrong fails the start with every problem named.
     */
    public static final class RuntimeSetup implements SyntheticBeanCreator<DistlockSetup> {
        @Override
        public DistlockSetup create(Instance<Object> lookup, Parameters params) {
            DistlockSetup setup = new DistlockSetup();
            // The priorities were given to the interceptors when the container was built (Fault
            // Tolerance's too, on Quarkus): the run-time configuration cannot move them.
            int[] order = params.get(ORDER, int[].class, null);
            if (order != null) {
                setup.fixOrder(InterceptorOrder.of(order[0], order[1]));
            }
            for (String className : params.get(LOCKED_CLASSES, String[].class, new String[0])) {
                setup.specs().inspect(load(className));
            }
            for (String injection : params.get(ID_INJECTIONS, String[].class, new String[0])) {
                int at = injection.lastIndexOf('=');
                IdStrategy strategy = IdStrategy.valueOf(injection.substring(at + 1));
                setup.ids().idInjectionPoint(injection.substring(0, at), strategy, "an injection point", strategy == IdStrategy.DAILY_SERIAL);
            }
            setup.readSettings();
            List<LockDefinitionException> problems = setup.takeProblems();
            if (!problems.isEmpty()) {
                LockDefinitionException failure = new LockDefinitionException("distlock cannot start: "
                        + problems.stream().map(Throwable::getMessage).collect(Collectors.joining("; ")));
                problems.forEach(failure::addSuppressed);
                throw failure;
            }
            return setup;
        }
    }
}
