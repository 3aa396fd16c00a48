package dev.distlock.transactions;

import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The methods the transaction matrix composes: each runs the {@link Step} it is given, locked or
 * not, under each transaction attribute. The key is a parameter, so every cell locks keys of its own.
 */
@ApplicationScoped
public class Steps {

    /** A piece of work one level down. */
    @FunctionalInterface
    public interface Step {
        Object run() throws Exception;
    }

    public Object plain(Step step) throws Exception {
        return step.run();
    }

    @Transactional
    public Object required(Step step) throws Exception {
        return step.run();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Object requiresNew(Step step) throws Exception {
        return step.run();
    }

    @Transactional(Transactional.TxType.NOT_SUPPORTED)
    public Object notSupported(Step step) throws Exception {
        return step.run();
    }

    @Transactional(Transactional.TxType.SUPPORTS)
    public Object supports(Step step) throws Exception {
        return step.run();
    }

    @Transactional(Transactional.TxType.MANDATORY)
    public Object mandatory(Step step) throws Exception {
        return step.run();
    }

    @Transactional(Transactional.TxType.NEVER)
    public Object never(Step step) throws Exception {
        return step.run();
    }

    @Locked("{key}")
    public Object locked(String key, Step step) throws Exception {
        return step.run();
    }

    @Locked("{key}")
    @Transactional
    public Object lockedRequired(String key, Step step) throws Exception {
        return step.run();
    }

    @Locked("{key}")
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Object lockedRequiresNew(String key, Step step) throws Exception {
        return step.run();
    }

    @Locked("{key}")
    @Transactional(Transactional.TxType.NOT_SUPPORTED)
    public Object lockedNotSupported(String key, Step step) throws Exception {
        return step.run();
    }

    @Locked("{key}")
    @Transactional(Transactional.TxType.MANDATORY)
    public Object lockedMandatory(String key, Step step) throws Exception {
        return step.run();
    }

    @Locked("{key}")
    @Transactional(Transactional.TxType.NEVER)
    public Object lockedNever(String key, Step step) throws Exception {
        return step.run();
    }

    /** Locked until the stage {@code step} returns has completed. */
    @Locked("{key}")
    @SuppressWarnings("unchecked")
    public CompletionStage<Object> lockedStage(String key, Step step) throws Exception {
        return (CompletableFuture<Object>) step.run();
    }

    /** Must never wait: it is called where the caller's own chain may hold the key. */
    @Locked(value = "{key}", waitTime = 0)
    public Object reenter(String key, Step step) throws Exception {
        return step.run();
    }
}
