package dev.distlock.example.shop.e2e;

import dev.distlock.example.shop.launcher.PayaraNode;
import dev.distlock.testkit.PartitionProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults with a combined batch in flight ({@code shop.bench.desk=combined}: the buyers of a SKU
 * waiting in a server are served together, one transaction per batch): the batch's lock lost
 * before its commit, Redis restarted empty, and the holder's server killed ({@code kill -9}). In
 * each, no unit is oversold, no order is recorded without its stock, and every buyer is answered
 * — placed, sold out, or an error — never left hanging.
 *
 * <p>The lost lock's twin runs the same stall on a server with
 * {@code distlock.transaction.verify-before-commit=false}: the whole batch commits under the lost
 * lock, which only the check before the commit prevents.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CombinedFaultsIT {

    /** A sale of several seconds (~4.5 s), so that a fault lands while batches are committing. */
    private static final int STOCK = 1_000;
    private static final int BUYERS = 1_500;
    /** Orders stalled together in one batch. */
    private static final int STALLED = 5;
    /** The shop's {@code @Combined(max = 64)}: the most orders a killed holder can have committed without answering. */
    private static final int MAX_BATCH = 64;

    private E2eShop shop;
    private final ShopHttp http = new ShopHttp();
    private PartitionProxy firstDatabase;
    private PartitionProxy uncheckedDatabase;
    private PayaraNode first;
    private PayaraNode second;
    private PayaraNode unchecked;

    @RegisterExtension
    final PrintLogsOnFailure logs = new PrintLogsOnFailure(() -> shop);

    @BeforeAll
    void start() throws Exception {
        shop = E2eShop.withoutServers("combined-faults", E2eShop.externalDatabaseUrl());
        String url = shop.cluster().database().url();
        firstDatabase = new PartitionProxy(E2eShop.databasePort(url));
        uncheckedDatabase = new PartitionProxy(E2eShop.databasePort(url));
        Map<String, String> combined = new HashMap<>(E2eShop.shortestWatchdog());
        combined.put("shop.bench.desk", "combined");
        Map<String, String> throughProxy = new HashMap<>(combined);
        throughProxy.put("shop.datasource.url", E2eShop.throughProxy(url, firstDatabase));
        Map<String, String> notChecked = new HashMap<>(combined);
        notChecked.put("distlock.transaction.verify-before-commit", "false");
        notChecked.put("shop.datasource.url", E2eShop.throughProxy(url, uncheckedDatabase));
        Map<String, Map<String, String>> servers = new LinkedHashMap<>();
        servers.put("combined-faults-1", throughProxy);
        servers.put("combined-faults-2", combined);
        servers.put("combined-faults-unchecked", notChecked);
        List<PayaraNode> started = shop.addServers(servers);
        first = started.get(0);
        second = started.get(1);
        unchecked = started.get(2);
    }

    @AfterAll
    void stop() {
        http.close();
        E2eShop.closeAll(firstDatabase, uncheckedDatabase, shop);
    }

    @Test
    @Order(1)
    void aBatchWhoseLockExpiredBeforeItsCommitIsRolledBackAndEachOfItsBuyersIsAnswered503() throws Exception {
        String sku = E2eShop.uniqueSku("STALLED-BATCH");
        List<ShopHttp.Answer> answers = stallBatch(first, firstDatabase, sku);
        E2eShop.Ledger ledger = shop.ledger(sku);
        System.out.println("[combined faults] a batch of " + STALLED + " stalled past its lease, checked before commit: "
                + statuses(answers) + " | database: " + ledger);
        assertAll(
                () -> assertEquals(List.of(503, 503, 503, 503, 503), statuses(answers), answers::toString),
                () -> assertTrue(answers.stream().allMatch(answer -> Storm.isProblem(answer, 503)
                        && answer.json().getString("title").equals("Lock lost") && answer.retryAfter() != null), answers::toString),
                () -> assertEquals(new E2eShop.Ledger(10, 0, 0, 0, 0), ledger, "nothing the stalled batch wrote is in the database"),
                () -> assertTrue(log(first).contains("The batch of " + STALLED + " combined calls"),
                        "the " + STALLED + " orders were one batch (the server's log names its size)"));

        ShopHttp.Answer again = http.post(first.url() + "/api/orders", "{\"sku\":\"" + sku + "\",\"quantity\":1}");
        assertEquals(201, again.status(), () -> "the order retried as the answer says: " + again);
        assertEquals(new E2eShop.Ledger(9, 0, 1, 1, 1), shop.ledger(sku));
    }

    /** The twin: without the check before the commit, the stalled batch commits although its lock was gone. */
    @Test
    @Order(2)
    void withoutTheCheckTheStalledBatchIsCommitted() throws Exception {
        String sku = E2eShop.uniqueSku("UNCHECKED-BATCH");
        List<ShopHttp.Answer> answers = stallBatch(unchecked, uncheckedDatabase, sku);
        E2eShop.Ledger ledger = shop.ledger(sku);
        System.out.println("[combined faults] twin, not checked before commit: " + statuses(answers) + " | database: " + ledger);
        assertAll(
                () -> assertEquals(new E2eShop.Ledger(10 - STALLED, 0, STALLED, STALLED, STALLED), ledger,
                        "the batch was committed under a lost lock"),
                // Found lost only at the release, after the commit: the orders are in the database, and the
                // shop answers for each (the batch's fenced stock write was accepted, so they stand).
                () -> assertEquals(List.of(201, 201, 201, 201, 201), statuses(answers), answers::toString));
    }

    /**
     * Payara Micro 6's Fault Tolerance beside the lock with Redis down: the circuit breaker outside
     * the lock opens, and closes once Redis is back (here, where Redis is killed anyway).
     */
    @Test
    @Order(3)
    void aCircuitBreakerOutsideTheLockOpensWhileRedisIsDown() {
        TransactionChecksOnServers.assertCircuitBreakerOpensWhileRedisIsDown(http, second.url(), shop.cluster().redis(), "Payara Micro 6");
    }

    @Test
    @Order(4)
    void aStormWhoseRedisRestartsEmptyMidBatchOversellsNothingAndAnswersEveryBuyer() throws Exception {
        String sku = E2eShop.uniqueSku("COMBINED-RESTART");
        CompletableFuture<Storm.Result> storm = CompletableFuture.supplyAsync(
                () -> Storm.run(http, List.of(first.url(), second.url()), sku, STOCK, BUYERS));
        if (!awaitBatchesOf(first, firstDatabase, sku, storm)) {
            throw new AssertionError("the storm ended before " + first.name() + " was seen committing batches mid-sale: "
                    + storm.get().figures("combined, Redis not restarted"));
        }
        long killed = System.nanoTime();
        shop.cluster().redis().kill();
        Thread.sleep(1_000);
        shop.cluster().redis().start();
        long downMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        Storm.Result result = storm.get(5, TimeUnit.MINUTES);
        System.out.println(result.figures("combined, Redis restarted empty while " + first.name() + " was committing batches mid-sale, down "
                + downMillis + " ms"));
        E2eShop.Ledger ledger = shop.ledger(sku);
        System.out.println("[combined faults] Redis restart, in the database: " + ledger);
        Storm.assertAnsweredAndNothingOversold(result, ledger, STOCK, BUYERS);
    }

    /** Last: it leaves one server of the pair dead. */
    @Test
    @Order(5)
    void aStormWhoseHoldingServerIsKilledMidBatchOversellsNothingAndAnswersEveryBuyer() throws Exception {
        String sku = E2eShop.uniqueSku("COMBINED-KILL");
        Storm.Result result;
        E2eShop.Ledger atKill;
        long killMillis;
        // A client of its own: none of its connections was kept alive through the earlier storms.
        try (ShopHttp buyers = new ShopHttp()) {
            CompletableFuture<Storm.Result> storm = CompletableFuture.supplyAsync(
                    () -> Storm.run(buyers, List.of(first.url(), second.url()), sku, STOCK, BUYERS));
            if (!awaitBatchesOf(first, firstDatabase, sku, storm)) {
                throw new AssertionError("the storm ended before " + first.name() + " was seen committing batches mid-sale: "
                        + storm.get().figures("combined, not killed"));
            }
            atKill = shop.ledger(sku);
            long killed = System.nanoTime();
            first.kill(); // returns once the JVM is gone, which takes a while
            killMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            result = storm.get(5, TimeUnit.MINUTES);
        }
        System.out.println(result.figures("combined, " + first.name() + " killed (SIGKILL) while committing batches mid-sale"));
        E2eShop.Ledger ledger = shop.ledger(sku);
        Set<String> recorded = orderIds(sku);
        Set<String> unanswered = new HashSet<>(recorded);
        result.ids().forEach(unanswered::remove);
        System.out.println("[combined faults] kill -9, in the database: " + atKill.stock() + " units left as the kill was sent (the JVM"
                + " gone " + killMillis + " ms later), "
                + ledger + " at the end; committed but not answered 201 (the killed server's last batch): " + unanswered.size());
        List<String> hung = result.others().stream().filter(other -> other.contains("Timeout")).toList();
        List<String> notConnectionErrors = result.others().stream().filter(other -> !other.startsWith("-1 ")).toList();
        assertAll(
                () -> assertEquals(List.of(), hung, "buyers left waiting until their request timed out"),
                () -> assertEquals(List.of(), notConnectionErrors, "answers other than 201, 409, 503 and the killed server's"
                        + " broken connections"),
                () -> assertTrue(ledger.unitsOrdered() <= STOCK, "oversold: " + ledger.unitsOrdered() + " units for " + STOCK),
                () -> assertEquals(STOCK - ledger.unitsOrdered(), ledger.stock(), "stock + units ordered = initial stock"),
                () -> assertEquals(ledger.orders(), ledger.unitsOrdered(), "one unit per order"),
                () -> assertEquals(ledger.orders(), ledger.distinctIds(), "distinct order ids"),
                () -> assertTrue(recorded.containsAll(result.ids()), "every order answered 201 is in the database"),
                () -> assertTrue(unanswered.size() <= MAX_BATCH, "orders committed without an answer: " + unanswered.size()
                        + ", more than the killed server's one batch"));

        if (ledger.stock() > 0) {
            // The killed holder's lock ended with its lease: the other server sells the rest.
            ShopHttp.Answer served = Eventually.answer(() -> http.post(second.url() + "/api/orders",
                    "{\"sku\":\"" + sku + "\",\"quantity\":1}"), answer -> answer.status() == 201, 30);
            assertEquals(201, served.status(), () -> "the surviving server after the kill: " + served);
        }
    }

    private List<ShopHttp.Answer> stallBatch(PayaraNode server, PartitionProxy database, String sku) throws Exception {
        return LockStall.orders(shop, http, server, database, sku, 10, STALLED);
    }

    /**
     * Waits until the sale is under way — between one batch and the rest sold, as the database
     * (asked directly) shows — and {@code server} is talking to the database, which in the combined
     * desk it does only for a batch under the SKU's lock (the restock before the storm is done by
     * then). Neither signal asks the server: its {@code /api/locks} answers only after the buyers'
     * requests queued before it, by which time a sale of 300 units was over (once in a fresh run).
     *
     * @return whether it saw so before the storm ended
     */
    private boolean awaitBatchesOf(PayaraNode server, PartitionProxy database, String sku, CompletableFuture<?> storm)
            throws java.sql.SQLException, InterruptedException {
        try (var connection = shop.cluster().database().connect();
             var query = connection.prepareStatement("select stock from shop_stock where sku = ?")) {
            query.setString(1, sku);
            long traffic = database.bytesPassed();
            while (!storm.isDone()) {
                Thread.sleep(5);
                int stock;
                try (var row = query.executeQuery()) {
                    stock = row.next() ? row.getInt(1) : -1;
                }
                long now = database.bytesPassed();
                boolean talking = now != traffic;
                traffic = now;
                if (talking && stock <= STOCK - MAX_BATCH && stock > 2 * MAX_BATCH) {
                    System.out.println("[combined faults] " + server.name() + " committing batches, " + stock + " units left");
                    return true;
                }
            }
        }
        return false;
    }

    private Set<String> orderIds(String sku) throws java.sql.SQLException {
        Set<String> ids = new HashSet<>();
        try (var connection = shop.cluster().database().connect();
             var query = connection.prepareStatement("select id from shop_order where sku = ?")) {
            query.setString(1, sku);
            try (var rows = query.executeQuery()) {
                while (rows.next()) {
                    ids.add(Long.toString(rows.getLong(1)));
                }
            }
        }
        return ids;
    }

    private static List<Integer> statuses(List<ShopHttp.Answer> answers) {
        return answers.stream().map(ShopHttp.Answer::status).toList();
    }

    private static String log(PayaraNode server) throws IOException {
        return Files.readString(server.log());
    }
}
