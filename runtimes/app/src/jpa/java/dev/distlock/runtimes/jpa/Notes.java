package dev.distlock.runtimes.jpa;

import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.redisson.api.RedissonClient;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Item 4 of the transaction review: distlock's check before commit must run after the persistence
 * provider's flush, the last SQL of the transaction. Here the provider flushes an UPDATE at commit.
 */
@ApplicationScoped
public class Notes {

    @PersistenceContext
    EntityManager entities;

    @Inject
    RedissonClient redis;

    @Inject
    @ConfigProperty(name = "distlock.key-prefix", defaultValue = "distlock")
    String prefix;

    @Transactional
    public void write(String id, String text) {
        Note note = entities.find(Note.class, id);
        if (note == null) {
            entities.persist(new Note(id, text));
        } else {
            note.setText(text);
        }
    }

    @Transactional
    public String read(String id) {
        Note note = entities.find(Note.class, id);
        return note == null ? null : note.getText();
    }

    /** Changes the note under the lock; the lock's key vanishes from Redis while the provider flushes the change. */
    @Locked("flush:{id}")
    @Transactional
    public void rewriteLosingTheLockDuringTheFlush(String id, String text) {
        FlushProbe.DURING_FLUSH.set(() -> redis.getKeys().delete(prefix + ":lock:flush:" + id));
        entities.find(Note.class, id).setText(text);
    }

    /**
     * Changes the note under the lock and measures what is left unchecked: from just after
     * distlock's check (a synchronization registered during the commit, after the check was) until
     * the transaction has completed.
     *
     * @return that window in nanoseconds, recorded once the transaction has completed
     */
    @Locked("window:{id}")
    @Transactional
    public void rewriteMeasuringTheWindow(String id, String text, long[] window) throws NamingException {
        TransactionSynchronizationRegistry registry = (TransactionSynchronizationRegistry)
                new InitialContext().lookup("java:comp/TransactionSynchronizationRegistry");
        long[] checked = {0};
        registry.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                registry.registerInterposedSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                        checked[0] = System.nanoTime();
                    }

                    @Override
                    public void afterCompletion(int status) {
                    }
                });
            }

            @Override
            public void afterCompletion(int status) {
                window[0] = checked[0] == 0 ? -1 : System.nanoTime() - checked[0];
            }
        });
        entities.find(Note.class, id).setText(text);
    }
}
