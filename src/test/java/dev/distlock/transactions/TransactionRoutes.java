package dev.distlock.transactions;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Stereotype;
import jakarta.enterprise.inject.Vetoed;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.InterceptionFactory;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.inject.Inject;
import jakarta.inject.Qualifier;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every route by which CDI makes a bean {@code @Transactional}, each a bean of its own with the
 * same probe: a class, a method, a superclass, an interface (which CDI does not honour), a
 * stereotype, a stereotype inside a stereotype, {@link InterceptionFactory}, and an annotation
 * another extension adds. Each carries the same rollback rules, so that a route that lost its
 * transaction, or its rules, answers differently from the others.
 */
public final class TransactionRoutes {

    private TransactionRoutes() {
    }

    /** A checked exception the rules roll back for. */
    public static class Declined extends Exception {
        public Declined() {
            super("declined");
        }
    }

    /** A runtime exception the rules commit despite. */
    public static class Tolerated extends RuntimeException {
        public Tolerated() {
            super("tolerated");
        }
    }

    /** What the probe ends with. */
    public enum Ending {
        RETURNS, THROWS_DECLINED, THROWS_TOLERATED, THROWS_RUNTIME;

        void end() throws Declined {
            switch (this) {
                case RETURNS -> {
                }
                case THROWS_DECLINED -> throw new Declined();
                case THROWS_TOLERATED -> throw new Tolerated();
                case THROWS_RUNTIME -> throw new IllegalStateException("failed");
            }
        }
    }

    /**
     * What a route's method saw and how its transaction ended.
     *
     * @param active      a transaction was active inside the method
     * @param status      its status there ({@link Status})
     * @param callers     it was the caller's transaction
     * @param outcome     how it completed ({@link Status#STATUS_COMMITTED} or {@link Status#STATUS_ROLLEDBACK}),
     *                    or -1 if it had not completed when the call returned
     */
    public record Observed(boolean active, int status, boolean callers, int outcome) {
    }

    /** What each route's bean does: look at its transaction, then end as asked. */
    public interface Route {
        void probe(Ending ending, Object callersKey, Observation into) throws Declined;
    }

    /** Filled in by the probe as the method runs and its transaction completes. */
    public static final class Observation {
        volatile boolean active;
        volatile int status = Status.STATUS_NO_TRANSACTION;
        volatile boolean callers;
        final AtomicInteger outcome = new AtomicInteger(-1);

        public Observed observed() {
            return new Observed(active, status, callers, outcome.get());
        }
    }

    @ApplicationScoped
    public static class Looker {
        @Inject
        TransactionSynchronizationRegistry registry;

        /** Records what the calling method sees, then ends as asked. */
        void look(Ending ending, Object callersKey, Observation into) throws Declined {
            Object key = registry.getTransactionKey();
            into.active = key != null;
            into.status = registry.getTransactionStatus();
            into.callers = key != null && key.equals(callersKey);
            if (key != null) {
                registry.registerInterposedSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                    }

                    @Override
                    public void afterCompletion(int status) {
                        into.outcome.set(status);
                    }
                });
            }
            ending.end();
        }
    }

    @ApplicationScoped
    @Transactional(rollbackOn = Declined.class, dontRollbackOn = Tolerated.class)
    public static class OnClass implements Route {
        @Inject
        Looker looker;

        @Override
        public void probe(Ending ending, Object callersKey, Observation into) throws Declined {
            looker.look(ending, callersKey, into);
        }
    }

    @ApplicationScoped
    public static class OnMethod implements Route {
        @Inject
        Looker looker;

        @Override
        @Transactional(rollbackOn = Declined.class, dontRollbackOn = Tolerated.class)
        public void probe(Ending ending, Object callersKey, Observation into) throws Declined {
            looker.look(ending, callersKey, into);
        }
    }

    /** {@code @Transactional} is {@code @Inherited}: a subclass's bean is transactional through it. */
    @Transactional(rollbackOn = Declined.class, dontRollbackOn = Tolerated.class)
    public abstract static class TransactionalBase implements Route {
        @Inject
        Looker looker;

        @Override
        public void probe(Ending ending, Object callersKey, Observation into) throws Declined {
            looker.look(ending, callersKey, into);
        }
    }

    @ApplicationScoped
    public static class OnSuperclass extends TransactionalBase {
    }

    /** An interface's annotations are not the bean's in CDI: with or without distlock, the same. */
    @Transactional(rollbackOn = Declined.class, dontRollbackOn = Tolerated.class)
    public interface TransactionalApi extends Route {
    }

    @ApplicationScoped
    public static class OnInterface implements TransactionalApi {
        @Inject
        Looker looker;

        @Override
        public void probe(Ending ending, Object callersKey, Observation into) throws Declined {
            looker.look(ending, callersKey, into);
        }
    }

    @Stereotype
    @Transactional(rollbackOn = Declined.class, dontRollbackOn = Tolerated.class)
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface TransactionalService {
    }

    @ApplicationScoped
    @TransactionalService
    public static class ByStereotype implements Route {
        @Inject
        Looker looker;

        @Override
        public void probe(Ending ending, Object callersKey, Observation into) throws Declined {
            looker.look(ending, callersKey, into);
        }
    }

    @Stereotype
    @TransactionalService
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface AuditedService {
    }

    @ApplicationScoped
    @AuditedService
    public static class ByNestedStereotype implements Route {
        @Inject
        Looker looker;

        @Override
        public void probe(Ending ending, Object callersKey, Observation into) throws Declined {
            looker.look(ending, callersKey, into);
        }
    }

    /** Made transactional by {@link AddsTransactional}, another extension. */
    @ApplicationScoped
    public static class ByExtension implements Route {
        @Inject
        Looker looker;

        @Override
        public void probe(Ending ending, Object callersKey, Observation into) throws Declined {
            looker.look(ending, callersKey, into);
        }
    }

    /** Another library's extension that makes {@link ByExtension} transactional as it is discovered. */
    public static class AddsTransactional implements Extension {
        void add(@Observes ProcessAnnotatedType<ByExtension> type) {
            type.configureAnnotatedType().add(TransactionalLiteral.RULED);
        }
    }

    @Qualifier
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER})
    public @interface Factored {
        final class Literal extends AnnotationLiteral<Factored> implements Factored {
            public static final Literal INSTANCE = new Literal();
            private static final long serialVersionUID = 1L;
        }
    }

    /** Not a bean itself: its instances are made transactional by {@link InterceptionFactory} in {@link Factory}. */
    @Vetoed
    public static class Plain implements Route {
        private final Looker looker;

        Plain(Looker looker) {
            this.looker = looker;
        }

        /** For the container's subclass only. */
        protected Plain() {
            this.looker = null;
        }

        @Override
        public void probe(Ending ending, Object callersKey, Observation into) throws Declined {
            looker.look(ending, callersKey, into);
        }
    }

    @ApplicationScoped
    public static class Factory {
        @Produces
        @Factored
        @ApplicationScoped
        Plain transactionalPlain(InterceptionFactory<Plain> interception, Looker looker) {
            interception.configure().add(TransactionalLiteral.RULED);
            return interception.createInterceptedInstance(new Plain(looker));
        }
    }

    /** {@code @Transactional} with the rules every route carries. */
    @SuppressWarnings("all")
    public static final class TransactionalLiteral extends AnnotationLiteral<Transactional> implements Transactional {
        static final TransactionalLiteral RULED = new TransactionalLiteral();
        private static final long serialVersionUID = 1L;

        @Override
        public TxType value() {
            return TxType.REQUIRED;
        }

        @Override
        public Class[] rollbackOn() {
            return new Class[] {Declined.class};
        }

        @Override
        public Class[] dontRollbackOn() {
            return new Class[] {Tolerated.class};
        }
    }

    /** The beans of every route. */
    public static final Class<?>[] BEANS = {Looker.class, OnClass.class, OnMethod.class, OnSuperclass.class, OnInterface.class,
            ByStereotype.class, ByNestedStereotype.class, ByExtension.class, Factory.class};
}
