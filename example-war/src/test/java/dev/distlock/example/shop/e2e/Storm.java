package dev.distlock.example.shop.e2e;

import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flash sale: {@code requests} orders of one unit each, all sent at once, alternating between
 * the servers, while another thread keeps reading the stock. Bounded: every request has a timeout.
 */
final class Storm {

    private static final long SAMPLE_MILLIS = 25;

    /** What came back. {@code ids} are the ids of the 201s; {@code others} holds every answer that was not 201, 409 or 503. */
    record Result(int requests, int initialStock, Map<Integer, Integer> statuses, List<String> ids, List<String> numbers, int badRetryAfter,
                  int badProblemBodies, List<String> others, int lowestStockSeen, int stockSamples, int finalStock,
                  Duration took) {

        int count(int status) {
            return statuses.getOrDefault(status, 0);
        }

        long distinctIds() {
            return new HashSet<>(ids).size();
        }

        long distinctNumbers() {
            return new HashSet<>(numbers).size();
        }

        String figures(String label) {
            return String.format("[storm] %s: %d requests over 2 servers against %d units in %d ms: 201=%d 409=%d 503=%d other=%d"
                            + " | distinct ids=%d duplicate ids=%d | distinct order numbers=%d duplicate numbers=%d"
                            + " | final stock=%d, lowest stock seen=%d (%d samples)%s",
                    label, requests, initialStock, took.toMillis(), count(201), count(409), count(503), others.size(),
                    distinctIds(), ids.size() - distinctIds(), distinctNumbers(), numbers.size() - distinctNumbers(), finalStock, lowestStockSeen, stockSamples,
                    others.isEmpty() ? "" : " | first others: " + others.subList(0, Math.min(3, others.size())));
        }
    }

    private Storm() {
    }

    static Result run(ShopHttp http, List<String> servers, String sku, int initialStock, int requests) {
        http.setStock(servers.get(0), sku, initialStock);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger lowest = new AtomicInteger(Integer.MAX_VALUE);
        AtomicInteger samples = new AtomicInteger();
        Thread sampler = new Thread(() -> {
            int turn = 0;
            while (running.get()) {
                ShopHttp.Answer answer = http.get(servers.get(turn++ % servers.size()) + "/api/inventory/" + sku);
                if (answer.status() == 200) {
                    lowest.accumulateAndGet(answer.json().getInt("stock"), Math::min);
                    samples.incrementAndGet();
                }
                try {
                    Thread.sleep(SAMPLE_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "stock-sampler");

        long started = System.nanoTime();
        sampler.start();
        List<CompletableFuture<ShopHttp.Answer>> answers = new ArrayList<>(requests);
        for (int i = 0; i < requests; i++) {
            HttpRequest order = ShopHttp.order(servers.get(i % servers.size()), sku, 1);
            answers.add(http.sendAsync(order).exceptionally(failure ->
                    new ShopHttp.Answer(-1, failure.toString(), "", null, null)));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).join();
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        running.set(false);
        try {
            sampler.join(ShopHttp.REQUEST_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }

        Map<Integer, Integer> statuses = new TreeMap<>();
        List<String> ids = new ArrayList<>();
        List<String> numbers = new ArrayList<>();
        List<String> others = new ArrayList<>();
        int badRetryAfter = 0;
        int badProblemBodies = 0;
        for (CompletableFuture<ShopHttp.Answer> future : answers) {
            ShopHttp.Answer answer = future.join();
            statuses.merge(answer.status(), 1, Integer::sum);
            switch (answer.status()) {
                case 201 -> {
                    ids.add(answer.json().getString("id"));
                    numbers.add(answer.json().getString("number"));
                }
                case 409 -> badProblemBodies += isProblem(answer, 409) ? 0 : 1;
                case 503 -> {
                    badProblemBodies += isProblem(answer, 503) ? 0 : 1;
                    badRetryAfter += answer.retryAfter() == null ? 1 : 0;
                }
                default -> others.add(answer.toString());
            }
        }
        int finalStock = http.stock(servers.get(1 % servers.size()), sku);
        return new Result(requests, initialStock, statuses, ids, numbers, badRetryAfter, badProblemBodies, others,
                lowest.get() == Integer.MAX_VALUE ? finalStock : Math.min(lowest.get(), finalStock), samples.get(), finalStock, took);
    }

    /**
     * A storm through a fault: every one of {@code buyers} answered 201, 409 or 503 (with a problem
     * body), no more 201s than {@code stock}, and the database agrees — each 201 an order in it and no
     * other, stock + units ordered = {@code stock}, distinct ids.
     */
    static void assertAnsweredAndNothingOversold(Result result, E2eShop.Ledger ledger, int stock, int buyers) {
        assertAll(
                () -> assertEquals(List.of(), result.others(), "answers other than 201, 409 and 503"),
                () -> assertEquals(buyers, result.count(201) + result.count(409) + result.count(503), "every buyer answered"),
                () -> assertTrue(result.count(201) <= stock, "oversold: " + result.count(201) + " orders for " + stock),
                () -> assertEquals(result.count(201), ledger.orders(), "every order in the database was answered 201, no other"),
                () -> assertEquals(stock - ledger.unitsOrdered(), ledger.stock(), "stock + units ordered = initial stock"),
                () -> assertEquals(ledger.orders(), ledger.distinctIds(), "distinct order ids"),
                () -> assertEquals(0, result.badProblemBodies(), "409/503 answers without a problem body"));
    }

    static boolean isProblem(ShopHttp.Answer answer, int status) {
        if (!answer.contentType().startsWith("application/problem+json")) {
            return false;
        }
        try {
            var json = answer.json();
            return json.getInt("status") == status && !json.getString("title").isBlank() && !json.getString("detail").isBlank();
        } catch (RuntimeException | AssertionError e) {
            return false;
        }
    }

    static Set<String> nonNumericIds(List<String> ids) {
        Set<String> bad = new HashSet<>();
        for (String id : ids) {
            try {
                if (Long.parseLong(id) <= 0) {
                    bad.add(id);
                }
            } catch (NumberFormatException e) {
                bad.add(id);
            }
        }
        return bad;
    }
}
