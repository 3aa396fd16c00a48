package dev.distlock.example.shop.e2e;

import dev.distlock.example.shop.launcher.PayaraNode;
import dev.distlock.testkit.PartitionProxy;
import dev.distlock.testkit.Resp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Orders stalled inside their transaction until their lock has expired, with the lock outside
 * {@code @Transactional} as the shop has it: the test holds the SKU's lock for a moment while the
 * orders read the stock and queue for it; then their database stops answering (a proxy holds the
 * traffic back), so that once they have the lock they stall at their first statement; then their
 * whole server is frozen (SIGSTOP) for longer than the lease, so its watchdog stands still and
 * Redis lets the lock expire. Then both go on. Nobody else wrote the SKU meanwhile, so the fenced
 * stock write cannot tell; what must catch it is distlock's check just before the commit.
 */
final class LockStall {

    private static final Duration LOCK_EXPIRY_WAIT = Duration.ofSeconds(15);
    /** The field of the lock hash the test holds the lock under; the shop's owners look otherwise. */
    private static final String TEST_HOLDER = "lock-stall-test:1";

    private LockStall() {
    }

    /**
     * Sets the SKU's stock to {@code stock} and sends {@code orders} orders of one unit to
     * {@code server} (whose database {@code database} proxies), stalled as above; returns their
     * answers. Orders of a combined desk wait together and are served as one batch.
     */
    static List<ShopHttp.Answer> orders(E2eShop shop, ShopHttp http, PayaraNode server, PartitionProxy database, String sku,
                                        int stock, int orders) throws Exception {
        http.setStock(server.url(), sku, stock);
        String lockKey = "shop:lock:stock:" + sku;
        try (Resp redis = Resp.connect(shop.cluster().redis().port(), 5_000)) {
            redis.command("HSET", lockKey, TEST_HOLDER, "1");
            redis.command("PEXPIRE", lockKey, "3000");
        }
        List<CompletableFuture<ShopHttp.Answer>> sent = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            sent.add(http.sendAsync(ShopHttp.order(server.url(), sku, 1)));
        }
        Thread.sleep(1_500); // each order reads the stock before it queues for the lock: let them
        database.cut();
        try {
            Eventually.that(() -> shop.heldByOtherThan(lockKey, TEST_HOLDER), "the order took the SKU's lock", Duration.ofSeconds(30));
            server.pause();
            try {
                Eventually.that(() -> !shop.inRedis(lockKey), "the frozen server's lock expired in Redis", LOCK_EXPIRY_WAIT);
            } finally {
                database.heal();
                server.resume();
            }
        } finally {
            database.heal();
        }
        List<ShopHttp.Answer> answers = new ArrayList<>();
        for (CompletableFuture<ShopHttp.Answer> order : sent) {
            answers.add(order.get(2, TimeUnit.MINUTES));
        }
        return answers;
    }
}
