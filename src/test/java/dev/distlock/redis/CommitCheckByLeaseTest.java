package dev.distlock.redis;

import dev.distlock.internal.core.*;
import dev.distlock.testkit.backend.*;
import dev.distlock.testkit.Waits;
import dev.distlock.testkit.backend.FakeTransactions;
import dev.distlock.DistributedLocks;
import dev.distlock.LeaseProof;
import dev.distlock.testkit.Ports;
import dev.distlock.testkit.Processes;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The check just before a commit shows a fenced lock held from what Redis last said of its lease,
 * without asking again, while that lease is known to last and no connection to Redis was lost
 * since; in every other case it asks. Redis is paused (SIGSTOP) at the commit: a commit that needed
 * Redis's answer cannot have one then, and is rolled back; one shown held from its lease commits.
 * Redis is real, and so are its restarts; the transaction manager is {@link FakeTransactions}.
 */
@Timeout(60)
class CommitCheckByLeaseTest {

    /** How long an answer from Redis may take, and so how long a lease must still last to count. */
    private static final Duration ANSWER_GRACE = Duration.ofMillis(300);

    private final FakeTransactions transactions = new FakeTransactions();
    private RedisProcess server;
    private RedissonClient client;

    @BeforeEach
    void startRedis() {
        server = RedisProcess.start(Ports.free());
    }

    @AfterEach
    void stopRedis() {
        resume();
        if (client != null) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
        server.close();
    }

    @Test
    void aFencedLocksTransactionCommitsWithoutAskingRedis() {
        DistributedLocks locks = locks(LeaseProof.FENCED, config -> { });
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.exclusive("stock").fenced().run(this::pause);
        assertTrue(transaction.commit(), "shown held from its lease, while Redis could not answer");
    }

    /** Twin: asked of Redis, the same commit waits for an answer that cannot come, and rolls back. */
    @Test
    void askingRedisInsteadTheCommitIsRolledBackWhileRedisIsPaused() {
        DistributedLocks locks = locks(LeaseProof.NONE, config -> { });
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.exclusive("stock").fenced().run(this::pause);
        assertFalse(transaction.commit(), "no answer from Redis, so no commit");
    }

    @Test
    void anUnfencedLockIsAskedUnlessEveryLockMayBeShownHeldByItsLease() {
        DistributedLocks fencedOnly = locks(LeaseProof.FENCED, config -> { });
        FakeTransactions.Transaction asked = transactions.begin();
        fencedOnly.exclusive("plain").run(this::pause);
        assertFalse(asked.commit(), "an unfenced lock is asked by default");
        resume();

        DistributedLocks all = locks(LeaseProof.ALL, config -> { });
        FakeTransactions.Transaction shown = transactions.begin();
        all.exclusive("plain").run(this::pause);
        assertTrue(shown.commit(), "with LeaseProof.ALL it is shown held from its lease");
    }

    /**
     * A fixed lease of 1 s and work that takes 0.8 s: less than the answer grace is known to be
     * left, so Redis is asked (and, paused, cannot answer). The same lock after 0.1 s of work is
     * shown held from its lease.
     */
    @Test
    void aLeaseThatMayRunOutBeforeAnAnswerCouldComeIsAsked() {
        DistributedLocks locks = locks(LeaseProof.FENCED, config -> { });
        FakeTransactions.Transaction late = transactions.begin();
        locks.exclusive("short").fenced().leaseTime(Duration.ofSeconds(1)).run(() -> {
            Waits.sleep(800);
            pause();
        });
        assertFalse(late.commit(), "0.2 s of lease left is less than the answer grace: asked");
        resume();

        FakeTransactions.Transaction early = transactions.begin();
        locks.exclusive("short").fenced().leaseTime(Duration.ofSeconds(1)).run(() -> {
            Waits.sleep(100);
            pause();
        });
        assertTrue(early.commit(), "0.9 s left: shown held from the lease");
    }

    /**
     * The watchdog's lease is 1.5 s, the work takes 3 s: what the acquisition was told has run out
     * by then, but the lease watch's checks (every 0.5 s) keep telling how long the renewed lease has
     * left, and the commit is shown held from the latest of them.
     */
    @Test
    void theLeaseWatchsChecksKeepARenewedLeaseKnown() {
        DistributedLocks locks = locks(LeaseProof.FENCED, config -> config.setLockWatchdogTimeout(1_500));
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.exclusive("long").fenced().run(() -> {
            Waits.sleep(3_000);
            pause();
        });
        assertTrue(transaction.commit(), "the last check told the renewed lease");
    }

    /**
     * Redis restarts empty while the transaction runs: the lock is gone, though the lease Redis
     * granted would still run for 30 s. The client lost its connections, so the lease is no longer
     * known held: Redis is asked, says the lock is gone, and the transaction rolls back.
     */
    @Test
    void afterRedisRestartedEmptyTheLockIsAskedAndFoundGone() {
        DistributedLocks locks = locks(LeaseProof.FENCED, config -> { });
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.exclusive("stock").fenced().run(this::restartEmpty);
        assertFalse(transaction.commit(), "the lock is gone: no commit");
    }

    /** Twin: blind to lost connections, the same transaction commits under a lock Redis no longer has. */
    @Test
    void blindToLostConnectionsTheTransactionWouldCommitUnderALostLock() {
        RedisConnectionBreaks blind = new RedisConnectionBreaks() {
            @Override
            long count(RedissonClient client) {
                return 0;
            }
        };
        client = newClient(config -> { });
        RedisBackend backend = new RedisBackend(() -> client, ANSWER_GRACE.toMillis(), blind);
        DistributedLocks locks = new EngineBuilder().transactions(transactions)
                .keyPrefix(TestRedis.uniquePrefix("blind")).answerGrace(ANSWER_GRACE).leaseProof(LeaseProof.FENCED).build(backend);
        FakeTransactions.Transaction transaction = transactions.begin();
        locks.exclusive("stock").fenced().run(this::restartEmpty);
        assertTrue(transaction.commit(), "committed although Redis lost the lock");
    }

    private DistributedLocks locks(LeaseProof proof, Consumer<Config> customizer) {
        if (client == null) {
            client = newClient(customizer);
        }
        return new EngineBuilder().transactions(transactions)
                .keyPrefix(TestRedis.uniquePrefix("lease-proof"))
                .answerGrace(ANSWER_GRACE)
                .leaseProof(proof)
                .build(new RedisBackend(() -> client, ANSWER_GRACE.toMillis()));
    }

    private RedissonClient newClient(Consumer<Config> customizer) {
        Config config = new Config();
        config.useSingleServer().setAddress(server.url()).setConnectionMinimumIdleSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1).setTimeout(1_000).setRetryAttempts(1);
        customizer.accept(config);
        return Redisson.create(config);
    }

    /** Redis stops answering (SIGSTOP) until {@link #resume()}; its connections stay open. */
    private void pause() {
        Processes.signal(server.pid(), "STOP");
    }

    private void resume() {
        if (server.alive()) {
            Processes.signal(server.pid(), "CONT");
        }
    }

    /** SIGKILL and a fresh, empty server on the same port; returns once the client has used it. */
    private void restartEmpty() {
        server.kill();
        server.start();
        client.getBucket(TestRedis.uniquePrefix("probe")).isExists();
    }
}
