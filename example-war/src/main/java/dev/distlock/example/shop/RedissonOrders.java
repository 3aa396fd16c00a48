package dev.distlock.example.shop;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.concurrent.TimeUnit;

/**
 * For the shop benchmark only ({@code shop.bench.desk=redisson}): what a developer writes with raw
 * Redisson instead of {@code @Locked(fenced = true)} — an {@link RFencedLock} per SKU, taken
 * before the transaction and given back after it, as {@link LockedOrders}'s is. Its tokens count
 * from 1 and cannot be compared with the {@code fence} column's (see
 * {@link OrderBook#placeUnderOwnLock}); the write is the same UPDATE. A Redisson client of its own,
 * on the Redis distlock uses (address only), made on first use. Unstriped SKUs only.
 */
@ApplicationScoped
@Typed(RedissonOrders.class)
public class RedissonOrders implements OrderDesk {

    private static final long WAIT_SECONDS = 30;

    private final OrderBook book;
    private final String address;
    private volatile RedissonClient redisson;

    @Inject
    RedissonOrders(OrderBook book, @ConfigProperty(name = "distlock.redis.address", defaultValue = "redis://127.0.0.1:6379") String address) {
        this.book = book;
        this.address = address;
    }

    /** For proxies only. */
    protected RedissonOrders() {
        this.book = null;
        this.address = null;
    }

    @Override
    public Order place(NumberedOrder order) {
        String sku = order.sku();
        RFencedLock lock = client().getFencedLock("shop:raw:stock:" + sku);
        Long token;
        try {
            token = lock.tryLockAndGetToken(WAIT_SECONDS, TimeUnit.SECONDS); // the token is what RFencedLock costs
        } catch (RuntimeException e) {
            throw ShopException.busy(sku);
        }
        if (token == null) {
            throw ShopException.busy(sku);
        }
        BenchSection section = BenchSection.begin("redisson", sku);
        long transaction = 0;
        try {
            long started = System.nanoTime();
            Order placed = book.placeUnderOwnLock(order);
            transaction = System.nanoTime() - started;
            return placed;
        } finally {
            lock.unlock();
            BenchSection.end(section, transaction);
        }
    }

    private RedissonClient client() {
        RedissonClient client = redisson;
        if (client == null) {
            synchronized (this) {
                client = redisson;
                if (client == null) {
                    Config config = new Config();
                    config.useSingleServer().setAddress(address);
                    client = redisson = Redisson.create(config);
                }
            }
        }
        return client;
    }

    @PreDestroy
    void close() {
        if (redisson != null) {
            redisson.shutdown();
        }
    }
}
