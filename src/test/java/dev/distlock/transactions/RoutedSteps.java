package dev.distlock.transactions;

import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.util.concurrent.CompletionStage;

/**
 * The matrix's steps made transactional by the other routes CDI offers, each with a plain and a
 * locked method: a stereotype, a superclass, an interface (which CDI does not honour: no
 * transaction), and {@code @Transactional} methods that return a stage, whose transaction the
 * transaction manager commits when the stage completes.
 */
public final class RoutedSteps {

    private RoutedSteps() {
    }

    /** What every route offers the matrix. */
    public interface Routed {
        Object required(Steps.Step step) throws Exception;

        Object lockedRequired(String key, Steps.Step step) throws Exception;
    }

    @ApplicationScoped
    @TransactionRoutes.TransactionalService
    public static class ByStereotype implements Routed {
        @Override
        public Object required(Steps.Step step) throws Exception {
            return step.run();
        }

        @Override
        @Locked("{key}")
        public Object lockedRequired(String key, Steps.Step step) throws Exception {
            return step.run();
        }
    }

    @Transactional
    public abstract static class TransactionalBase implements Routed {
        @Override
        public Object required(Steps.Step step) throws Exception {
            return step.run();
        }

        @Override
        @Locked("{key}")
        public Object lockedRequired(String key, Steps.Step step) throws Exception {
            return step.run();
        }
    }

    @ApplicationScoped
    public static class BySuperclass extends TransactionalBase {
    }

    @Transactional
    public interface TransactionalApi extends Routed {
    }

    @ApplicationScoped
    public static class ByInterface implements TransactionalApi {
        @Override
        public Object required(Steps.Step step) throws Exception {
            return step.run();
        }

        @Override
        @Locked("{key}")
        public Object lockedRequired(String key, Steps.Step step) throws Exception {
            return step.run();
        }
    }

    /** Asynchronous {@code @Transactional}: the transaction ends when the returned stage completes. */
    @ApplicationScoped
    public static class Later {
        @Transactional
        @SuppressWarnings("unchecked")
        public CompletionStage<Object> required(Steps.Step step) throws Exception {
            return (CompletionStage<Object>) step.run();
        }

        @Locked("{key}")
        @Transactional
        @SuppressWarnings("unchecked")
        public CompletionStage<Object> lockedRequired(String key, Steps.Step step) throws Exception {
            return (CompletionStage<Object>) step.run();
        }
    }

    /** Every bean of this class's, for a container. */
    public static final Class<?>[] BEANS = {ByStereotype.class, BySuperclass.class, ByInterface.class, Later.class};
}
