package dev.distlock.example.shop.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A long sale of one SKU: {@code orders} orders of one unit from {@code clients} buyers at once,
 * alternating between the servers; the stock set again every {@code restockEvery} orders (by the
 * buyer whose turn it is, so restocks land in the middle of the orders); and {@code readers}
 * threads reading the SKU's stock as fast as they are answered, the whole time.
 *
 * <p>Readers matter: {@code GET /api/inventory/{sku}} runs the very query a buyer's order starts
 * with, outside the order lock, which is how a database that answers from a stale cache (H2 before
 * 2.3.232 with result reuse on) shows itself.
 */
final class LongStorm {

    /** What to send. */
    record Plan(int orders, int clients, int readers, int initialStock, int restockEvery, int restockTo) {
        int restocks() {
            return (orders - 1) / restockEvery;
        }
    }

    /** What came back; {@code others} holds every order answer that was not 201 or 409, and every failed read or restock. */
    record Result(Plan plan, Map<Integer, Integer> statuses, List<String> ids, List<String> others, int restocks,
                  long unitsRestocked, long reads, int lowestStockSeen, int finalStock, Duration took) {

        int count(int status) {
            return statuses.getOrDefault(status, 0);
        }

        long distinctIds() {
            return new HashSet<>(ids).size();
        }

        /** Units the stock says were sold: what it started with and was given, less what is left. */
        long unitsSoldByStock() {
            return plan.initialStock() + unitsRestocked - finalStock;
        }

        String figures(String label) {
            return String.format("[long storm] %s: %d orders from %d buyers over 2 servers in %d s (%.0f orders/s), %d restocks"
                            + " (+%d units), %d reads by %d readers: 201=%d 409=%d other=%d | distinct ids=%d"
                            + " | units sold by the stock=%d | final stock=%d, lowest stock seen=%d%s",
                    label, plan.orders(), plan.clients(), took.toSeconds(), plan.orders() / Math.max(0.001, took.toMillis() / 1000.0),
                    restocks, unitsRestocked, reads, plan.readers(), count(201), count(409), others.size(), distinctIds(),
                    unitsSoldByStock(), finalStock, lowestStockSeen,
                    others.isEmpty() ? "" : " | first others: " + others.subList(0, Math.min(5, others.size())));
        }
    }

    private LongStorm() {
    }

    static Result run(ShopHttp http, List<String> servers, String sku, Plan plan) throws InterruptedException {
        http.setStock(servers.get(0), sku, plan.initialStock());
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        List<String> ids = Collections.synchronizedList(new ArrayList<>(plan.orders()));
        List<String> others = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger next = new AtomicInteger();
        AtomicInteger restocks = new AtomicInteger();
        AtomicLong unitsRestocked = new AtomicLong();
        AtomicBoolean selling = new AtomicBoolean(true);
        AtomicLong reads = new AtomicLong();
        AtomicInteger lowest = new AtomicInteger(Integer.MAX_VALUE);

        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < plan.readers(); r++) {
            int first = r;
            readers.add(start("stock-reader-" + r, () -> {
                for (int turn = first; selling.get(); turn++) {
                    try {
                        ShopHttp.Answer answer = http.get(servers.get(turn % servers.size()) + "/api/inventory/" + sku);
                        if (answer.status() != 200) {
                            others.add("read: " + answer);
                            continue;
                        }
                        lowest.accumulateAndGet(answer.json().getInt("stock"), Math::min);
                        reads.incrementAndGet();
                    } catch (RuntimeException | AssertionError failed) {
                        others.add("read: " + failed);
                    }
                }
            }));
        }

        long started = System.nanoTime();
        List<Thread> buyers = new ArrayList<>();
        for (int c = 0; c < plan.clients(); c++) {
            buyers.add(start("buyer-" + c, () -> {
                for (int i = next.getAndIncrement(); i < plan.orders(); i = next.getAndIncrement()) {
                    String server = servers.get(i % servers.size());
                    try {
                        if (i > 0 && i % plan.restockEvery() == 0) {
                            restock(http, server, sku, plan.restockTo(), restocks, unitsRestocked, others);
                        }
                        order(http, server, sku, statuses, ids, others);
                    } catch (RuntimeException | AssertionError failed) {
                        others.add("order or restock: " + failed);
                    }
                }
            }));
        }
        for (Thread buyer : buyers) {
            buyer.join();
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        selling.set(false);
        for (Thread reader : readers) {
            reader.join(ShopHttp.REQUEST_TIMEOUT.toMillis());
        }
        int finalStock = http.stock(servers.get(1 % servers.size()), sku);
        return new Result(plan, new TreeMap<>(statuses), List.copyOf(ids), List.copyOf(others), restocks.get(),
                unitsRestocked.get(), reads.get(), Math.min(lowest.get(), finalStock), finalStock, took);
    }

    private static void restock(ShopHttp http, String server, String sku, int stock, AtomicInteger restocks,
                                AtomicLong unitsRestocked, List<String> others) {
        ShopHttp.Answer restocked = http.put(server + "/api/inventory/" + sku, "{\"stock\":" + stock + "}");
        if (restocked.status() != 200) {
            others.add("restock: " + restocked);
            return;
        }
        unitsRestocked.addAndGet(restocked.json().getInt("stock") - restocked.json().getInt("previousStock"));
        restocks.incrementAndGet();
    }

    private static void order(ShopHttp http, String server, String sku, Map<Integer, Integer> statuses, List<String> ids,
                              List<String> others) {
        ShopHttp.Answer answer = http.send(ShopHttp.order(server, sku, 1));
        statuses.merge(answer.status(), 1, Integer::sum);
        switch (answer.status()) {
            case 201 -> ids.add(answer.json().getString("id"));
            case 409 -> {
                if (!Storm.isProblem(answer, 409)) {
                    others.add("order: 409 without a problem body: " + answer);
                }
            }
            default -> others.add("order: " + answer);
        }
    }

    private static Thread start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
