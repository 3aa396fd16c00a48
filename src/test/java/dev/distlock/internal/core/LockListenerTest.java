package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.DistributedLocks;
import dev.distlock.LockListener;
import dev.distlock.LockLostException;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.testkit.TestRedis;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The listener hears acquisitions, releases, timeouts and lost locks — and cannot break a call. */
class LockListenerTest {

    private static final RedissonClient client = TestRedis.sharedClient();

    record Event(String what, String key) {
    }

    static final class Recorder implements LockListener {
        final List<Event> events = new CopyOnWriteArrayList<>();

        @Override
        public void acquired(String key, LockMode mode, long waitNanos) {
            events.add(new Event("acquired", key));
        }

        @Override
        public void released(String key, LockMode mode, long heldNanos) {
            events.add(new Event("released", key));
        }

        @Override
        public void timedOut(String key, LockMode mode, long waitNanos) {
            events.add(new Event("timedOut", key));
        }

        @Override
        public void lost(String key, LockMode mode) {
            events.add(new Event("lost", key));
        }
    }

    @Test
    void acquisitionAndReleaseAreReportedOnceEvenWhenReentered() {
        Recorder recorder = new Recorder();
        String prefix = TestRedis.uniquePrefix("listener");
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).listener(recorder).build();
        locks.exclusive("k").run(() -> locks.exclusive("k").run(() -> { }));
        String key = prefix + ":lock:k";
        assertEquals(List.of(new Event("acquired", key), new Event("released", key)), recorder.events);
    }

    @Test
    void timeoutsAndLostLeasesAreReported() throws Exception {
        Recorder recorder = new Recorder();
        String prefix = TestRedis.uniquePrefix("listener");
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).listener(recorder).build();
        DistributedLocks other = RedisLocks.builder(client).keyPrefix(prefix).build();
        String key = prefix + ":lock:k";

        assertThrows(LockLostException.class, () -> locks.exclusive("k").leaseTime(Duration.ofMillis(200)).run(() -> Waits.sleep(600)));
        assertEquals(new Event("lost", key), recorder.events.get(recorder.events.size() - 1));

        Thread holder = new Thread(() -> other.exclusive("k").run(() -> Waits.sleep(1_500)));
        holder.start();
        Waits.sleep(300);
        assertThrows(LockTimeoutException.class, () -> locks.exclusive("k").waitTime(Duration.ofMillis(100)).run(() -> { }));
        holder.join();
        assertEquals(new Event("timedOut", key), recorder.events.get(recorder.events.size() - 1));
    }

    /** The programmatic API names itself as the site: a constant, whatever the key. */
    @Test
    void theSiteOfAProgrammaticCallIsTheApiNotTheKey() {
        List<String> heard = new CopyOnWriteArrayList<>();
        LockListener sites = new LockListener() {
            @Override
            public void acquired(String key, String site, LockMode mode, long waitNanos) {
                heard.add(site + " " + mode);
            }
        };
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("listener")).listener(sites).build();
        locks.exclusive("order:1").run(() -> { });
        locks.read("catalog:2").run(() -> { });
        locks.write("catalog:3").run(() -> { });
        assertEquals(List.of("DistributedLocks.exclusive(...) EXCLUSIVE", "DistributedLocks.read(...) READ",
                "DistributedLocks.write(...) WRITE"), heard);
    }

    @Test
    void aFailingListenerDoesNotChangeTheOutcome() {
        LockListener broken = new LockListener() {
            @Override
            public void acquired(String key, LockMode mode, long waitNanos) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void released(String key, LockMode mode, long heldNanos) {
                throw new IllegalStateException("listener bug");
            }
        };
        DistributedLocks locks = RedisLocks.builder(client).keyPrefix(TestRedis.uniquePrefix("listener")).listener(broken).build();
        assertEquals("done", locks.exclusive("k").get(() -> "done"));
        assertEquals("again", locks.exclusive("k").waitTime(Duration.ZERO).get(() -> "again"));
    }
}
