package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import dev.distlock.id.DailySerials;
import dev.distlock.id.GeneratedId;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.InjectionPoint;
import jakarta.enterprise.inject.spi.InterceptionType;
import jakarta.enterprise.inject.spi.Interceptor;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.ProcessInjectionPoint;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import jakarta.enterprise.inject.spi.ProcessProducerField;
import jakarta.enterprise.inject.spi.ProcessProducerMethod;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.inject.Singleton;

import java.lang.annotation.Annotation;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * distlock in full CDI (Payara, WildFly, Open Liberty, Weld SE): registers the interceptors and
 * checks every lock at deployment. Each locked method's annotation, configuration overrides and key
 * templates are resolved into a {@link LockSpec} once, and anything wrong fails the deployment with
 * a message that names the class, the method, the member and the value. The Redis settings are
 * checked here too; Redis itself is not contacted, so the application deploys while Redis is down.
 * A class that carries a lock annotation but whose calls the container would not intercept fails
 * the deployment too: a locked method never runs unlocked. CDI Lite runtimes use
 * {@link DistlockBuildExtension} instead, which this one's presence turns off.
 */
public class DistlockExtension implements Extension {

    private static final System.Logger LOG = System.getLogger(DistlockExtension.class.getName());

    private final DistlockSetup setup = new DistlockSetup();
    /** Classes of the bean archives that carry lock annotations, and whether a managed bean is (or extends) them. */
    private final Map<Class<?>, Boolean> annotatedTypes = new ConcurrentHashMap<>();
    /** Each locked bean class and the lock annotations its methods use. */
    private final Map<Class<?>, Collection<Annotation>> lockedBeans = new ConcurrentHashMap<>();

    void registerBeans(@Observes BeforeBeanDiscovery discovery, BeanManager beans) {
        int priority = setup.order().lock();
        for (Class<?> type : OwnBeans.ALWAYS) {
            String id = DistlockExtension.class.getName() + "." + type.getName();
            if (priority != InterceptorOrder.DEFAULT && OwnBeans.LOCK_INTERCEPTORS.contains(type)) {
                // distlock.interceptor.priority moves the lock in the chain
                discovery.addAnnotatedType(type, id).remove(a -> a.annotationType() == Priority.class)
                        .add(new InterceptorOrder.PriorityLiteral(priority));
            } else {
                discovery.addAnnotatedType(beans.createAnnotatedType(type), id);
            }
        }
        // Observability only where the server has the APIs; the classes are not even loaded otherwise.
        for (String className : OwnBeans.observability()) {
            try {
                Class<?> type = Class.forName(className, false, DistlockExtension.class.getClassLoader());
                discovery.addAnnotatedType(beans.createAnnotatedType(type), DistlockExtension.class.getName() + "." + type.getName());
            } catch (ClassNotFoundException | LinkageError e) {
                LOG.log(System.Logger.Level.WARNING, "distlock: " + className + " not registered: " + e);
            }
        }
    }

    /** Whether a lock annotation the container would not honour fails the deployment; only a test's twin says no. */
    boolean refusesUnlockedCalls() {
        return true;
    }

    void seeLockedTypes(@Observes @WithAnnotations({Locked.class, ReadLocked.class, WriteLocked.class}) ProcessAnnotatedType<?> type) {
        Class<?> javaClass = type.getAnnotatedType().getJavaClass();
        if (OwnBeans.own(javaClass) || !refusesUnlockedCalls()) {
            return;
        }
        setup.specs().checkInterface(javaClass);
        if (!javaClass.isInterface() && !javaClass.isAnnotation()) {
            annotatedTypes.putIfAbsent(javaClass, false);
        }
    }

    void resolveLocks(@Observes ProcessManagedBean<?> bean, BeanManager beans) {
        Class<?> beanClass = bean.getAnnotatedBeanClass().getJavaClass();
        for (Class<?> c = beanClass; c != null && c != Object.class; c = c.getSuperclass()) {
            annotatedTypes.computeIfPresent(c, (type, seen) -> true);
        }
        Collection<Annotation> bindings = setup.specs().inspect(beanClass);
        if (!bindings.isEmpty()) {
            lockedBeans.put(beanClass, bindings);
            setup.combinedNeedsNormalScope(beanClass, bean.getBean().getScope().getSimpleName(),
                    beans.isNormalScope(bean.getBean().getScope()));
        }
    }

    /** What a producer returns is not intercepted: a locked class made by one would run unlocked. */
    void refuseProducedLocks(@Observes ProcessProducerMethod<?, ?> producer) {
        refuseProduced(producer.getAnnotatedProducerMethod().getJavaMember().getReturnType(),
                "producer method " + producer.getAnnotatedProducerMethod().getJavaMember());
    }

    void refuseProducedLocks(@Observes ProcessProducerField<?, ?> producer) {
        refuseProduced(producer.getAnnotatedProducerField().getJavaMember().getType(),
                "producer field " + producer.getAnnotatedProducerField().getJavaMember());
    }

    private void refuseProduced(Class<?> type, String producer) {
        if (refusesUnlockedCalls() && !OwnBeans.own(type) && LockSpecs.carriesLocks(type)) {
            setup.problem(new LockDefinitionException(type.getName() + " carries lock annotations but the " + producer
                    + " makes its instances, and the container does not intercept what a producer returns, so its calls would run"
                    + " unlocked; make " + type.getSimpleName() + " a bean (a bean-defining annotation such as @ApplicationScoped)"
                    + " and inject it instead of producing it"));
        }
    }

    /** Weld may fire these events from several deployment threads: the setup merges them atomically. */
    void collectIdGenerators(@Observes ProcessInjectionPoint<?, ?> event) {
        InjectionPoint point = event.getInjectionPoint();
        for (Annotation qualifier : point.getQualifiers()) {
            if (qualifier instanceof GeneratedId generatedId) {
                setup.ids().idInjectionPoint(generatedId.value(), generatedId.strategy(), point.toString(), point.getType() == DailySerials.class);
            }
        }
    }

    void reportProblems(@Observes AfterBeanDiscovery discovery) {
        setup.readSettings();
        setup.takeProblems().forEach(discovery::addDefinitionError);
        discovery.addBean().types(DistlockSetup.class).scope(Singleton.class).createWith(context -> setup);
    }

    /**
     * Every class with a lock annotation is a managed bean, or a superclass of one, and each locked
     * bean has distlock's interceptor for each lock annotation it uses: otherwise its calls would
     * run without the lock, which no application wants.
     */
    void refuseUnlockedCalls(@Observes AfterDeploymentValidation validation, BeanManager beans) {
        if (!refusesUnlockedCalls()) {
            return;
        }
        annotatedTypes.forEach((type, bean) -> {
            if (!bean && !Modifier.isAbstract(type.getModifiers())) {
                validation.addDeploymentProblem(new LockDefinitionException(type.getName() + " carries lock annotations but is not a"
                        + " bean the container intercepts (not a managed bean, vetoed, or only created with new), so its calls would"
                        + " run unlocked; give it a bean-defining annotation such as @ApplicationScoped and inject it"));
            }
        });
        lockedBeans.forEach((bean, bindings) -> {
            for (Annotation binding : bindings) {
                List<Interceptor<?>> interceptors = beans.resolveInterceptors(InterceptionType.AROUND_INVOKE, binding);
                if (interceptors.stream().noneMatch(i -> OwnBeans.LOCK_INTERCEPTORS.contains(i.getBeanClass()))) {
                    validation.addDeploymentProblem(new LockDefinitionException(bean.getName() + " uses @"
                            + binding.annotationType().getSimpleName() + " but distlock's interceptor for it is not enabled in this"
                            + " deployment, so its calls would run unlocked"));
                }
            }
        });
    }
}
