package dev.distlock.example.shop;

import dev.distlock.LockTimeoutException;
import dev.distlock.Locked;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * What the end-to-end tests ask of the server with distlock deployed that the shop's own flows do
 * not show ({@link ChecksResource}): a bean that is {@code @Transactional} through a stereotype runs
 * in a transaction, and a later caller on the thread of an asynchronous {@code @Transactional}
 * locked call (its method returned an unfinished stage) does not enter its lock.
 */
@ApplicationScoped
public class TransactionChecks {

    @Inject
    Stereotyped stereotyped;
    @Inject
    TransactionChecks self;

    /** Transactional only through its stereotype. */
    @ApplicationScoped
    @TransactionalService
    public static class Stereotyped {
        @Resource
        TransactionSynchronizationRegistry registry;

        public boolean inTransaction() {
            return registry.getTransactionKey() != null;
        }
    }

    public boolean stereotypedInTransaction() {
        return stereotyped.inTransaction();
    }

    /** {@code refused}: the later caller did not enter; {@code entered}: it did, into a lock the unfinished call held. */
    public String laterCallerOnTheThread(String key) throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        CompletionStage<String> unfinished = self.reserveLater(key, done);
        String answer;
        try {
            answer = self.touch(key);
        } catch (LockTimeoutException refused) {
            answer = "refused";
        }
        done.complete("done");
        unfinished.toCompletableFuture().get(10, TimeUnit.SECONDS);
        return answer;
    }

    @Locked("check:{key}")
    @Transactional
    public CompletionStage<String> reserveLater(String key, CompletionStage<String> done) {
        return done;
    }

    @Locked(value = "check:{key}", waitTime = 0)
    public String touch(String key) {
        return "entered";
    }
}
