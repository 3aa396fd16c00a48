package dev.distlock.redis;

import dev.distlock.LockMode;
import dev.distlock.spi.StoredLock;
import org.redisson.api.RScript;
import org.redisson.api.RType;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The locks Redis holds under a name prefix, for {@code LockBackend.inspect}: a SCAN for hashes
 * matching the prefix (on every master of a cluster), then each hash's fields and time to live in
 * one read-only script per lock. Redisson keeps a lock as a hash of its holders
 * ({@code <client id>:<acquisition id>}, with {@code :write} after a write lock's holder and a
 * {@code mode} field in a read-write lock). Nothing here runs on the lock path.
 */
final class RedisLockListing {

    /** {pttl, field, value, field, value, ...}; an empty list when the key is gone. */
    private static final String READ = """
            local ttl = redis.call('pttl', KEYS[1])
            if ttl == -2 then return {} end
            local out = {ttl}
            for _, v in ipairs(redis.call('hgetall', KEYS[1])) do out[#out + 1] = v end
            return out""";

    private RedisLockListing() {
    }

    /** @param named the holders' ids with the server of each */
    static List<StoredLock> list(RedissonClient client, String namePrefix, int limit, long answerMillis,
                                 Function<List<String>, List<StoredLock.Holder>> named) {
        String thisClient = client.getId() + ":";
        List<String> names = new ArrayList<>();
        for (String name : client.getKeys().getKeys(KeysScanOptions.defaults().pattern(glob(namePrefix) + "*")
                .type(RType.MAP).limit(limit))) {
            names.add(name);
        }
        RScript script = client.getScript(StringCodec.INSTANCE);
        List<CompletableFuture<List<Object>>> reads = new ArrayList<>(names.size());
        for (String name : names) {
            reads.add(script.<List<Object>>evalAsync(name, RScript.Mode.READ_ONLY, READ, RScript.ReturnType.LIST,
                    List.of(name)).toCompletableFuture());
        }
        List<StoredLock> locks = new ArrayList<>(names.size());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(answerMillis);
        for (int i = 0; i < names.size(); i++) {
            List<Object> read = RedisBackend.await(reads.get(i), deadline, answerMillis,
                    "listing the locks under '" + namePrefix + "' in Redis");
            StoredLock lock = parse(names.get(i), read, thisClient);
            if (lock != null) {
                locks.add(lock);
            }
        }
        List<String> ids = locks.stream().flatMap(lock -> lock.holderIds().stream()).toList();
        Iterator<StoredLock.Holder> holders = named.apply(ids).iterator();
        List<StoredLock> withNodes = new ArrayList<>(locks.size());
        for (StoredLock lock : locks) {
            List<StoredLock.Holder> these = new ArrayList<>(lock.holders().size());
            for (int h = 0; h < lock.holders().size(); h++) {
                these.add(holders.next());
            }
            withNodes.add(new StoredLock(lock.name(), lock.mode(), these, lock.heldByThisClient(), lock.leaseLeftMillis()));
        }
        return withNodes;
    }

    /** {@code null} when the lock was released between the scan and the read, or the hash is not a lock. */
    static StoredLock parse(String name, List<Object> read, String thisClient) {
        if (read == null || read.isEmpty()) {
            return null;
        }
        long ttl = ((Number) read.get(0)).longValue();
        List<Object> fields = read.subList(1, read.size());
        List<String> holders = holders(fields);
        if (holders.isEmpty()) {
            return null;
        }
        boolean here = holders.stream().anyMatch(holder -> holder.startsWith(thisClient));
        return new StoredLock(name, mode(fields), holders.stream().map(id -> StoredLock.Holder.of(id, null)).toList(), here,
                ttl < 0 ? StoredLock.NO_EXPIRY : ttl);
    }

    /** The holders in a lock hash's {@code field, value, ...}: every field but a read-write lock's {@code mode}, without {@code :write}. */
    static List<String> holders(List<Object> fields) {
        List<String> holders = new ArrayList<>();
        for (int f = 0; f + 1 < fields.size(); f += 2) {
            String field = String.valueOf(fields.get(f));
            if (!field.equals("mode")) {
                holders.add(field.endsWith(":write") ? field.substring(0, field.length() - ":write".length()) : field);
            }
        }
        return holders;
    }

    private static LockMode mode(List<Object> fields) {
        for (int f = 0; f + 1 < fields.size(); f += 2) {
            if (String.valueOf(fields.get(f)).equals("mode")) {
                return "write".equals(String.valueOf(fields.get(f + 1))) ? LockMode.WRITE : LockMode.READ;
            }
        }
        return LockMode.EXCLUSIVE;
    }

    /** {@code prefix} as a Redis glob that matches it literally. */
    static String glob(String prefix) {
        StringBuilder glob = new StringBuilder(prefix.length() + 8);
        for (char c : prefix.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                glob.append('\\');
            }
            glob.append(c);
        }
        return glob.toString();
    }
}
