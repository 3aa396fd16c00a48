package dev.distlock.runtimes;

import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Stock kept in Redis and changed by read, think, write: safe only under the lock. The unlocked
 * twin of {@link #buy} is there for the checks, to show that the same storm oversells without it.
 */
@ApplicationScoped
public class Stock {

    @Inject
    RedissonClient redis;

    @Inject
    @ConfigProperty(name = "distlock.key-prefix", defaultValue = "distlock")
    String prefix;

    /** @return the units left after this purchase, or -1 if none was left */
    @Locked("sku:{sku}")
    public int buy(String sku) throws InterruptedException {
        return takeOne(sku);
    }

    public int buyUnlocked(String sku) throws InterruptedException {
        return takeOne(sku);
    }

    @WriteLocked("catalog:{sku}")
    public void restock(String sku, int units) {
        bucket(sku).set(Integer.toString(units));
    }

    @ReadLocked("catalog:{sku}")
    public int level(String sku) {
        String value = bucket(sku).get();
        return value == null ? 0 : Integer.parseInt(value);
    }

    /** Whether distlock's key for this SKU is held in Redis while the locked method runs. */
    @Locked("sku:{sku}")
    public boolean heldInRedis(String sku) {
        return redis.getLock(prefix + ":lock:sku:" + sku).isLocked();
    }

    /** Locked inside a transaction that its caller began: distlock keeps the key until that transaction ends. */
    @Locked("sku:{sku}")
    public void touch(String sku) {
    }

    /** Whether distlock's key for this SKU is held in Redis now (not itself locked). */
    public boolean keyHeld(String sku) {
        return redis.getLock(prefix + ":lock:sku:" + sku).isLocked();
    }

    /** Waits 60 s by its annotation; application.properties overrides it to 200 ms. */
    @Locked(value = "hold", waitTime = 60_000)
    public void hold(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    private int takeOne(String sku) throws InterruptedException {
        RBucket<String> bucket = bucket(sku);
        String value = bucket.get();
        int left = value == null ? 0 : Integer.parseInt(value);
        if (left <= 0) {
            return -1;
        }
        Thread.sleep(1);
        bucket.set(Integer.toString(left - 1));
        return left - 1;
    }

    private RBucket<String> bucket(String sku) {
        return redis.getBucket(prefix + ":stock:" + sku, StringCodec.INSTANCE);
    }
}
