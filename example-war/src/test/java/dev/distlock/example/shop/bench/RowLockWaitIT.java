package dev.distlock.example.shop.bench;

import dev.distlock.example.shop.launcher.PayaraNode;
import dev.distlock.example.shop.launcher.ShopCluster;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benchmark's row-lock variant waits for the SKU's row as long as the lock variants wait for
 * their lock, not H2's own 2 s: an order whose row another transaction holds for longer than that
 * is served once the row is free. Without it, a storm's queue of buyers fails orders with "Timeout
 * trying to lock table" that distlock would have served, and the comparison is not like for like.
 */
class RowLockWaitIT {

    /** Twice H2's default lock timeout (2 s): an order that only waited that long has failed by then. */
    private static final Duration HELD = Duration.ofSeconds(4);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);

    @Test
    void anOrderWaitsForTheRowAnotherTransactionHolds() throws Exception {
        Path work = path("shop.work-dir").resolve("row-lock-wait");
        ShopCluster.Setup setup = new ShopCluster.Setup(path("shop.payara-micro"), path("shop.war"), work, true, null);
        try (ShopCluster cluster = ShopCluster.start(setup)) {
            PayaraNode server = cluster.startServers(List.of("row-lock"), 0,
                    ShopBench.serverProperties(Variant.ROW_LOCK, cluster.database()), START_TIMEOUT).get(0);
            HttpClient http = HttpClient.newHttpClient();
            String sku = "ROW-WAIT-1";
            HttpResponse<String> created = http.send(json(server.url() + "/api/inventory/" + sku).PUT(body("{\"stock\":1}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, created.statusCode(), created.body());

            try (Connection holder = cluster.database().connect()) {
                holder.setAutoCommit(false);
                lockRow(holder, sku);
                CompletableFuture<HttpResponse<String>> order = http.sendAsync(
                        json(server.url() + "/api/orders").POST(body("{\"sku\":\"" + sku + "\",\"quantity\":1}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                awaitBlockedBy(holder, cluster);

                Thread.sleep(HELD.toMillis());
                assertFalse(order.isDone(), () -> "the order gave up waiting for the row: " + order.join().body());
                holder.commit();

                HttpResponse<String> answer = order.get(60, TimeUnit.SECONDS);
                assertEquals(201, answer.statusCode(), answer.body());
            }
            HttpResponse<String> left = http.send(json(server.url() + "/api/inventory/" + sku).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(left.body().replace(" ", "").contains("\"stock\":0"), left.body());
        }
    }

    private static void lockRow(Connection holder, String sku) throws SQLException {
        try (PreparedStatement select = holder.prepareStatement("SELECT stock FROM shop_stock WHERE sku = ? FOR UPDATE")) {
            select.setString(1, sku);
            try (ResultSet row = select.executeQuery()) {
                assertTrue(row.next(), "the SKU's row");
            }
        }
    }

    /** Waits until a session of the server waits for {@code holder}'s lock: the order has reached the row. */
    private static void awaitBlockedBy(Connection holder, ShopCluster cluster) throws SQLException, InterruptedException {
        long holderSession;
        try (PreparedStatement id = holder.prepareStatement("SELECT SESSION_ID()"); ResultSet row = id.executeQuery()) {
            row.next();
            holderSession = row.getLong(1);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (Connection watcher = cluster.database().connect();
             PreparedStatement blocked = watcher.prepareStatement(
                     "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID = ?")) {
            blocked.setLong(1, holderSession);
            while (true) {
                try (ResultSet row = blocked.executeQuery()) {
                    row.next();
                    if (row.getInt(1) > 0) {
                        return;
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("no session came to wait for the row within 60 s");
                }
                Thread.sleep(20);
            }
        }
    }

    private static HttpRequest.Builder json(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Accept", "application/json");
    }

    private static HttpRequest.BodyPublisher body(String json) {
        return HttpRequest.BodyPublishers.ofString(json);
    }

    private static Path path(String property) {
        String value = System.getProperty(property);
        if (value == null) {
            throw new IllegalStateException("system property " + property + " is not set; run this with mvn verify in example-war");
        }
        return Path.of(value);
    }
}
