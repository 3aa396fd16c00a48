package dev.distlock.example.shop.bench;

import dev.distlock.testkit.Quantiles;
import jakarta.json.Json;
import jakarta.json.JsonReader;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A storm of single-unit orders for one fresh SKU that holds exactly as many units as there are
 * orders: {@code clients} threads each send {@code POST /api/orders} and wait for its answer, then
 * send the next, until all orders are sent. Client {@code c} always sends to server
 * {@code c mod servers}, and the orders are drawn from one shared count: a server whose buyers are
 * served faster places more of the orders, so the share of 201s per server shows whether the lock
 * favours one server. Every request's status and latency is kept; the stock left is read
 * afterwards through the last server.
 */
final class OrderStorm {

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    private static final int KEPT_UNEXPECTED = 3;
    private static final int ABBREVIATED_LENGTH = 300;

    private final HttpClient client;
    private final int redisPort;

    /** @param redisPort the port of the Redis whose commands each storm counts; 0 for none */
    OrderStorm(HttpClient client, int redisPort) {
        this.client = client;
        this.redisPort = redisPort;
    }

    /** The client every storm of a run shares (HTTP/1.1, so each client thread keeps a connection of its own). */
    static HttpClient newClient() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    }

    /**
     * Creates the SKU, sends the orders and reads the stock left.
     *
     * @param servers the servers' base URLs, {@code http://host:port}
     * @param cpu     the processes whose CPU time the storm counts
     */
    StormResult run(Variant variant, int round, List<String> servers, int orders, int clients, CpuPerOrder.Meter cpu)
            throws InterruptedException {
        return run(variant, round, servers, orders, orders, clients, cpu);
    }

    /**
     * As {@link #run(Variant, int, List, int, int, CpuPerOrder.Meter)}, for a SKU holding {@code stock}
     * units: fewer than {@code orders} makes a sold-out storm, whose last orders are answered 409.
     */
    StormResult run(Variant variant, int round, List<String> servers, int orders, int stock, int clients, CpuPerOrder.Meter cpu)
            throws InterruptedException {
        return run(variant, round, servers, orders, stock, clients, cpu, null);
    }

    /**
     * As {@link #run(Variant, int, List, int, int, CpuPerOrder.Meter)}, but no order is sent once
     * {@code limit} has passed since the first: a warm-up on servers that serve a hundred orders a
     * second (the database across a network) lasts as long as one on loopback, not ten times longer.
     * The result counts the orders sent; the SKU keeps the units not ordered.
     */
    StormResult runFor(Variant variant, List<String> servers, int orders, int clients, CpuPerOrder.Meter cpu, Duration limit)
            throws InterruptedException {
        return run(variant, 0, servers, orders, orders, clients, cpu, limit);
    }

    private StormResult run(Variant variant, int round, List<String> servers, int orders, int stock, int clients, CpuPerOrder.Meter cpu,
                            Duration limit) throws InterruptedException {
        String sku = ("B-" + variant.name().replaceAll("[^A-Za-z0-9]+", "-") + "-" + servers.size() + (stock < orders ? "-SO-" : "-")
                + UUID.randomUUID().toString().substring(0, 8)).toUpperCase();
        createSku(servers.get(0), sku, variant, stock);
        double[] heldBefore = lockHold(servers);

        int[] statuses = new int[orders];
        int[] servedBy = new int[orders];
        long[] latencies = new long[orders];
        ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
        AtomicInteger next = new AtomicInteger();
        long[] sendUntil = {Long.MAX_VALUE}; // set before the start latch opens, read after it
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < Math.min(clients, orders); c++) {
            int server = c % servers.size();
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    while (System.nanoTime() - sendUntil[0] < 0) {
                        int i = next.getAndIncrement();
                        if (i >= orders) {
                            break;
                        }
                        long sent = System.nanoTime();
                        statuses[i] = order(servers.get(server), sku, unexpected);
                        servedBy[i] = server;
                        latencies[i] = System.nanoTime() - sent;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "shop-bench-client-" + c);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        Map<String, Long> redisBefore = redisCalls();
        long[] cpuBefore = cpu.read();
        Instant startedAt = Instant.now();
        long started = System.nanoTime();
        sendUntil[0] = limit == null ? started + Long.MAX_VALUE : started + limit.toNanos();
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        Duration wall = Duration.ofNanos(System.nanoTime() - started);
        Instant endedAt = Instant.now();
        long[] cpuAfter = cpu.read();
        Map<String, Long> redisAfter = redisCalls();
        double[] heldAfter = lockHold(servers);
        long holds = Math.round(heldAfter[1] - heldBefore[1]);
        LockHold hold = holds <= 0 ? LockHold.NONE
                : new LockHold((heldAfter[0] - heldBefore[0]) * 1e3 / holds, (heldAfter[0] - heldBefore[0]) / (wall.toNanos() / 1e9));

        int sent = Math.min(next.get(), orders);
        Map<Integer, Integer> byStatus = new TreeMap<>();
        int[] createdPerServer = new int[servers.size()];
        for (int i = 0; i < sent; i++) {
            byStatus.merge(statuses[i], 1, Integer::sum);
            if (statuses[i] == 201) {
                createdPerServer[servedBy[i]]++;
            }
        }
        long[] soldOut = new long[byStatus.getOrDefault(409, 0)];
        for (int i = 0, next409 = 0; i < sent; i++) {
            if (statuses[i] == 409) {
                soldOut[next409++] = latencies[i];
            }
        }
        Arrays.sort(soldOut);
        long[] sentLatencies = Arrays.copyOf(latencies, sent);
        Arrays.sort(sentLatencies);
        int finalStock = stock(servers.get(servers.size() - 1), sku);
        return new StormResult(variant.name(), servers.size(), round, sku, stock, finalStock, byStatus,
                Arrays.stream(createdPerServer).boxed().toList(), wall,
                Quantiles.nearestRank(sentLatencies, 0.5) / 1e6, Quantiles.nearestRank(sentLatencies, 0.99) / 1e6,
                soldOut.length == 0 ? Double.NaN : Quantiles.nearestRank(soldOut, 0.5) / 1e6,
                soldOut.length == 0 ? Double.NaN : Quantiles.nearestRank(soldOut, 0.99) / 1e6, hold,
                unexpected.stream().limit(KEPT_UNEXPECTED).toList(), startedAt, endedAt,
                CpuPerOrder.Meter.perOrder(cpuBefore, cpuAfter, byStatus.getOrDefault(201, 0)),
                CpuPerOrder.Meter.perOrder(cpuBefore, cpuAfter, sent), SectionBreakdown.NONE,
                RedisCalls.perOrder(redisBefore, redisAfter, sent), BatchSizes.NONE);
    }

    private Map<String, Long> redisCalls() {
        return redisPort == 0 ? Map.of() : RedisCalls.count(redisPort);
    }

    /**
     * distlock's exclusive lock holds so far, summed over {@code servers}: seconds held and holds,
     * from the {@code distlock_lock_hold_seconds} timer on each server's {@code /metrics}. Zero
     * where no distlock lock was held (the raw Redisson and row-lock variants).
     */
    private double[] lockHold(List<String> servers) throws InterruptedException {
        double[] held = new double[2];
        for (String server : servers) {
            HttpResponse<String> metrics = send(HttpRequest.newBuilder(URI.create(server + "/metrics")).timeout(REQUEST_TIMEOUT)
                    .header("Accept", "text/plain").GET().build());
            for (String line : metrics.body().split("\n")) {
                if (line.startsWith("distlock_lock_hold_seconds_") && line.contains("mode=\"exclusive\"")) {
                    double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                    if (line.startsWith("distlock_lock_hold_seconds_sum")) {
                        held[0] += value;
                    } else if (line.startsWith("distlock_lock_hold_seconds_count")) {
                        held[1] += value;
                    }
                }
            }
        }
        return held;
    }

    /** One order; its status, or {@link StormResult#NO_ANSWER}. Answers other than 201 and 409 are noted in {@code unexpected}. */
    private int order(String server, String sku, ConcurrentLinkedQueue<String> unexpected) throws InterruptedException {
        HttpRequest request = request(server + "/api/orders")
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"" + sku + "\",\"quantity\":1}")).build();
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 201 && response.statusCode() != 409 && unexpected.size() < KEPT_UNEXPECTED) {
                unexpected.add(response.statusCode() + " from " + server + ": " + abbreviate(response.body()));
            }
            return response.statusCode();
        } catch (IOException | RuntimeException e) {
            // A timeout, a refused or reset connection, or the client failing in some other way: the
            // order counts as failed, and the storm goes on so that every order has a status.
            if (unexpected.size() < KEPT_UNEXPECTED) {
                unexpected.add("no answer from " + server + ": " + e);
            }
            return StormResult.NO_ANSWER;
        }
    }

    private void createSku(String server, String sku, Variant variant, int stock) throws InterruptedException {
        HttpRequest request = request(server + "/api/inventory/" + sku)
                .PUT(HttpRequest.BodyPublishers.ofString(variant.restockBody(stock))).build();
        HttpResponse<String> response = send(request);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("PUT " + request.uri() + " " + variant.restockBody(stock) + " answered "
                    + response.statusCode() + ": " + abbreviate(response.body()));
        }
    }

    private int stock(String server, String sku) throws InterruptedException {
        HttpResponse<String> response = send(request(server + "/api/inventory/" + sku).GET().build());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET stock of " + sku + " from " + server + " answered "
                    + response.statusCode() + ": " + abbreviate(response.body()));
        }
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            return reader.readObject().getInt("stock");
        }
    }

    private HttpResponse<String> send(HttpRequest request) throws InterruptedException {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(request.method() + " " + request.uri() + " failed: " + e, e);
        }
    }

    private static HttpRequest.Builder request(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json").header("Accept", "application/json");
    }

    /** The start of a body on one line; of an HTML error page, its text without markup. */
    private static String abbreviate(String body) {
        String text = body.startsWith("<") ? body.replaceAll("(?s)<style.*?</style>", " ").replaceAll("<[^>]*>", " ") : body;
        text = text.replaceAll("\\s+", " ").strip();
        return text.length() <= ABBREVIATED_LENGTH ? text : text.substring(0, ABBREVIATED_LENGTH) + "...";
    }
}
