package dev.distlock.testkit.backend;

import dev.distlock.DistributedLocks;
import dev.distlock.LockLostException;
import dev.distlock.internal.core.EngineBuilder;
import dev.distlock.internal.core.EngineLocks;
import dev.distlock.internal.core.LockExecutor;
import dev.distlock.spi.LockBackend;
import dev.distlock.testing.LostLocks;
import dev.distlock.testkit.PartitionProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One node cut off from the lock store while it keeps running and keeps reaching its database, and
 * the other node still reaches both: the partition of Kleppmann's analysis of Redis locks. Node A
 * reaches the store through a {@link PartitionProxy}, node B directly; both write to one real
 * database (H2, in this JVM).
 *
 * <p>Each cut: A holds {@value #KEYS_PER_CUT} locks, each inside a transaction that has read its
 * stock row; A's link to the store is cut; B takes every one of those locks once A's lease has run
 * out in the store, writes the stock and commits; then A's holders go on, write their stock read
 * before the cut and try to commit, the link still cut. With the protections on, none of A's writes
 * is committed: on even keys the lock is fenced and the write carries its token, which the database
 * refuses below B's; on odd keys the write is not fenced, and distlock's check before the commit
 * finds the lock gone and rolls the transaction back. Afterwards the link returns, and A must lock
 * again without a restart. The twin turns both protections off and shows the lost update.
 *
 * <p>A subclass says how to connect to its store and how long a cut-off holder's lock outlives the
 * cut there (a lease, a session timeout).
 */
@Timeout(600)
public abstract class PartitionContract {

    /** Locks A holds through each cut. */
    protected static final int KEYS_PER_CUT = 30;
    /** Cuts in the protected test: {@value #KEYS_PER_CUT} held locks each, 300 in all. */
    protected static final int CUTS = 10;
    private static final int STOCK = 100;
    /** How long distlock waits for the store to answer a check (the check before a commit). */
    private static final Duration ANSWER_GRACE = Duration.ofSeconds(2);

    /** Where the store listens, as this JVM reaches it: this machine's loopback address unless said otherwise. */
    protected String storeHost() {
        return "127.0.0.1";
    }

    protected abstract int storePort();

    /**
     * A new connection to the store at {@code host:port} (the proxy's for A, the store's own for B),
     * with the lease the test relies on; closed by the engine it is given to.
     *
     * @param answerGraceMillis how long the engine waits for the store to answer a check
     */
    protected abstract LockBackend connect(String host, int port, long answerGraceMillis);

    /** The longest a cut-off holder's lock outlives the cut in the store. */
    protected abstract Duration lease();

    private final String prefix = "partition-" + Long.toString(System.nanoTime(), 36);
    private final String databaseUrl = "jdbc:h2:mem:partition-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000";
    private final List<DistributedLocks> engines = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private PartitionProxy link;
    private Connection keepAlive;

    @BeforeEach
    void openDatabaseAndLink() throws Exception {
        keepAlive = DriverManager.getConnection(databaseUrl, "sa", "");
        try (Statement create = keepAlive.createStatement()) {
            create.execute("CREATE TABLE stock(sku VARCHAR(80) PRIMARY KEY, units INT NOT NULL, fence BIGINT NOT NULL)");
            create.execute("CREATE TABLE orders(id IDENTITY PRIMARY KEY, sku VARCHAR(80) NOT NULL, node VARCHAR(1) NOT NULL)");
        }
        link = new PartitionProxy(storeHost(), storePort());
    }

    @AfterEach
    void closeEverything() throws Exception {
        link.close();
        engines.forEach(DistributedLocks::close);
        threads.shutdownNow();
        keepAlive.close();
    }

    @Test
    void aCutOffHolderCommitsNothingAndRecoversWhenTheLinkReturns() throws Exception {
        Node a = node(link.port(), true);
        Node b = node(storePort(), true);
        Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
        List<String> wrong = new ArrayList<>();
        long slowestMillis = 0;
        long slowestRecoveryMillis = 0;
        for (int cut = 0; cut < CUTS; cut++) {
            Round round = cutMidHold(a, b, "cut" + cut, true);
            for (Held held : round.held()) {
                outcomes.merge(held.outcome(), 1, Integer::sum);
                Outcome expected = held.fenced() ? Outcome.REFUSED : Outcome.ROLLED_BACK;
                if (held.outcome() != expected) {
                    wrong.add(held.toString());
                }
                slowestMillis = Math.max(slowestMillis, held.millisAfterResuming());
            }
            slowestRecoveryMillis = Math.max(slowestRecoveryMillis, round.recoveryMillis());
            wrong.addAll(ledgerProblems(round.keys(), false));
        }
        System.out.printf("[partition] %s: %d cuts x %d held locks: %s; slowest answer to a cut-off holder %d ms "
                        + "after it went on; slowest recovery after the link returned %d ms (lease %d ms)%n",
                getClass().getSimpleName(), CUTS, KEYS_PER_CUT, outcomes, slowestMillis, slowestRecoveryMillis, lease().toMillis());
        long bound = lease().toMillis() + 2 * ANSWER_GRACE.toMillis() + 5_000;
        long slowest = slowestMillis;
        assertAll(
                () -> assertEquals(List.of(), wrong, "cut-off holders that committed, or ledgers that do not add up"),
                () -> assertEquals(CUTS * KEYS_PER_CUT, outcomes.values().stream().mapToInt(Integer::intValue).sum(), "every holder answered"),
                () -> assertTrue(slowest <= bound, "a cut-off holder waited " + slowest + " ms for its answer, more than " + bound));
    }

    /** The twin: no fencing, no check before the commit; the cut-off holder's stale write overwrites B's. */
    @Test
    void withoutFencingOrTheCheckTheCutOffHolderOverwritesTheOtherNode() throws Exception {
        Node a = node(link.port(), false);
        Node b = node(storePort(), false);
        Round round = cutMidHold(a, b, "twin", false);
        List<String> lostUpdates = ledgerProblems(round.keys(), true);
        System.out.printf("[partition] %s twin: %d held locks, %d lost updates, outcomes %s%n", getClass().getSimpleName(),
                KEYS_PER_CUT, lostUpdates.size(), round.held().stream().map(Held::outcome).toList());
        assertEquals(KEYS_PER_CUT, lostUpdates.size(), "every cut-off holder's write overwrote the other node's: " + lostUpdates);
    }

    /** A node: an engine over its own connection, with its own transactions. */
    private record Node(DistributedLocks locks, LockExecutor executor, FakeTransactions transactions) {
    }

    private Node node(int port, boolean verifyBeforeCommit) {
        FakeTransactions transactions = new FakeTransactions();
        EngineLocks locks = new EngineBuilder().keyPrefix(prefix).answerGrace(ANSWER_GRACE).listener(new LostLocks())
                .verifyBeforeCommit(verifyBeforeCommit).transactions(transactions).build(connect(storeHost(), port, ANSWER_GRACE.toMillis()));
        LockExecutor executor = locks.executor();
        engines.add(locks);
        return new Node(locks, executor, transactions);
    }

    enum Outcome {
        /** The write was refused by the database: its token was below a later holder's. */
        REFUSED,
        /** The check before the commit found the lock gone, and the transaction rolled back. */
        ROLLED_BACK,
        /** The transaction committed. */
        COMMITTED,
        /** Anything else: never expected. */
        OTHER
    }

    private record Held(String key, boolean fenced, Outcome outcome, long millisAfterResuming, Throwable failure) {
    }

    private record Round(List<String> keys, List<Held> held, long recoveryMillis) {
    }

    private Round cutMidHold(Node a, Node b, String name, boolean protectedRound) throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < KEYS_PER_CUT; i++) {
            keys.add(name + "-" + i);
        }
        try (PreparedStatement insert = keepAlive.prepareStatement("INSERT INTO stock VALUES (?, ?, 0)")) {
            for (String key : keys) {
                insert.setString(1, key);
                insert.setInt(2, STOCK);
                insert.executeUpdate();
            }
        }
        CountDownLatch holding = new CountDownLatch(keys.size());
        CountDownLatch resume = new CountDownLatch(1);
        List<CompletableFuture<Held>> holders = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            boolean fenced = protectedRound && i % 2 == 0;
            holders.add(CompletableFuture.supplyAsync(() -> holdThroughTheCut(a, key, fenced, holding, resume), threads));
        }
        if (!holding.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError("A did not take its " + keys.size() + " locks before the cut");
        }
        link.cut();
        try {
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (String key : keys) {
                writes.add(CompletableFuture.runAsync(() -> writeAsB(b, key), threads));
            }
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(lease().toSeconds() + 60, TimeUnit.SECONDS);
            resume.countDown();
            List<Held> held = new ArrayList<>();
            for (CompletableFuture<Held> holder : holders) {
                held.add(holder.get(lease().toSeconds() + 120, TimeUnit.SECONDS));
            }
            link.heal();
            long healed = System.nanoTime();
            a.locks().exclusive(keys.get(0)).waitTime(Duration.ofSeconds(60)).run(() -> { });
            a.locks().exclusive(name + "-after").waitTime(Duration.ofSeconds(60)).run(() -> { });
            return new Round(keys, held, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed));
        } finally {
            resume.countDown();
            link.heal();
        }
    }

    /** A's holder: reads its stock under the lock, waits through the cut until told to go on, then writes and commits. */
    private Held holdThroughTheCut(Node a, String key, boolean fenced, CountDownLatch holding, CountDownLatch resume) {
        DistributedLocks.LockCall call = a.locks().exclusive(key).waitTime(Duration.ofSeconds(30));
        if (fenced) {
            call = call.fenced();
        }
        long[] resumed = {0};
        boolean[] committed = {false};
        try {
            call.run(() -> {
                FakeTransactions.Transaction transaction = a.transactions().begin();
                a.executor().guardTransaction();
                try (Connection connection = DriverManager.getConnection(databaseUrl, "sa", "")) {
                    connection.setAutoCommit(false);
                    int units = units(connection, key);
                    holding.countDown();
                    resume.await();
                    resumed[0] = System.nanoTime();
                    OptionalLong token = fenced ? a.locks().context().fencingToken(key) : OptionalLong.empty();
                    if (!writeOrder(connection, key, units - 1, token, "A")) {
                        connection.rollback();
                        transaction.complete();
                        throw new WriteRefused(key);
                    }
                    if (transaction.commit()) {
                        connection.commit();
                        committed[0] = true;
                    } else {
                        connection.rollback();
                        throw new IllegalStateException("rolled back: the transaction was marked rollback-only");
                    }
                } catch (SQLException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            return new Held(key, fenced, committed[0] ? Outcome.COMMITTED : Outcome.OTHER, since(resumed[0]), null);
        } catch (WriteRefused e) {
            return new Held(key, fenced, committed[0] ? Outcome.OTHER : Outcome.REFUSED, since(resumed[0]), e);
        } catch (LockLostException e) {
            Outcome outcome = committed[0] ? Outcome.COMMITTED : e.rolledBack() ? Outcome.ROLLED_BACK : Outcome.OTHER;
            return new Held(key, fenced, outcome, since(resumed[0]), e);
        } catch (RuntimeException e) {
            return new Held(key, fenced, committed[0] ? Outcome.COMMITTED : Outcome.OTHER, since(resumed[0]), e);
        }
    }

    /** B: takes the lock once A's lease has run out, writes its order fenced, commits. */
    private void writeAsB(Node b, String key) {
        b.locks().exclusive(key).fenced().waitTime(lease().plusSeconds(60)).run(() -> {
            FakeTransactions.Transaction transaction = b.transactions().begin();
            b.executor().guardTransaction();
            try (Connection connection = DriverManager.getConnection(databaseUrl, "sa", "")) {
                connection.setAutoCommit(false);
                int units = units(connection, key);
                if (!writeOrder(connection, key, units - 1, b.locks().context().fencingToken(key), "B")) {
                    throw new IllegalStateException("B's fenced write to " + key + " was refused");
                }
                if (!transaction.commit()) {
                    throw new IllegalStateException("B's transaction on " + key + " was rolled back");
                }
                connection.commit();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static int units(Connection connection, String key) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement("SELECT units FROM stock WHERE sku = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }

    /** Writes the stock and records the order; fenced, only while no later holder's token is in the row. */
    private static boolean writeOrder(Connection connection, String key, int units, OptionalLong token, String node) throws SQLException {
        String sql = token.isPresent()
                ? "UPDATE stock SET units = ?, fence = ? WHERE sku = ? AND fence <= ?"
                : "UPDATE stock SET units = ? WHERE sku = ?";
        try (PreparedStatement write = connection.prepareStatement(sql)) {
            write.setInt(1, units);
            if (token.isPresent()) {
                write.setLong(2, token.getAsLong());
                write.setString(3, key);
                write.setLong(4, token.getAsLong());
            } else {
                write.setString(2, key);
            }
            if (write.executeUpdate() != 1) {
                return false;
            }
        }
        try (PreparedStatement order = connection.prepareStatement("INSERT INTO orders(sku, node) VALUES (?, ?)")) {
            order.setString(1, key);
            order.setString(2, node);
            order.executeUpdate();
        }
        return true;
    }

    /**
     * What is wrong in the database for {@code keys}: stock and orders that do not add up (a lost
     * update), a missing order of B's, or (unless {@code twin}) an order of A's.
     */
    private List<String> ledgerProblems(List<String> keys, boolean twin) throws SQLException {
        List<String> problems = new ArrayList<>();
        for (String key : keys) {
            int units = units(keepAlive, key);
            int ordersOfA = orders(key, "A");
            int ordersOfB = orders(key, "B");
            if (units + ordersOfA + ordersOfB != STOCK || ordersOfB != 1 || !twin && ordersOfA != 0) {
                problems.add(key + ": stock " + units + ", orders of A " + ordersOfA + ", of B " + ordersOfB);
            }
        }
        return problems;
    }

    private int orders(String key, String node) throws SQLException {
        try (PreparedStatement count = keepAlive.prepareStatement("SELECT COUNT(*) FROM orders WHERE sku = ? AND node = ?")) {
            count.setString(1, key);
            count.setString(2, node);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }

    private static long since(long nanos) {
        return nanos == 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** The database refused a fenced write: a later holder's token is in the row. */
    private static final class WriteRefused extends RuntimeException {
        WriteRefused(String key) {
            super("the fenced write to " + key + " was refused", null, false, false);
        }
    }
}
