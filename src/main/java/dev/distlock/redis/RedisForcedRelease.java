package dev.distlock.redis;

import org.redisson.RedissonObject;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.pubsub.LockPubSub;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Ends a lock in Redis from outside its holders, for {@code LockBackend.forceRelease}: one script
 * deletes the lock's hash and publishes the unlock message its waiters listen for, as the holder's
 * own release would. The holders' watchdogs then find their field gone and stop renewing, their
 * checks answer "not held", and their releases answer "was not held".
 *
 * <p>A holder counts as fenced when its field in the hash ends in one of distlock's holder ids for
 * a fenced acquisition ({@link RedisBackend#holderId}: 19 digits, odd): the id each acquisition is
 * given says whether it took a token, so the store shows it without anything added to the lock path.
 * Readers and writers of a read-write lock are never fenced.
 */
final class RedisForcedRelease {

    /**
     * KEYS: the lock, the exclusive lock's channel, the read-write lock's channel. ARGV: '1' to end it
     * only if fenced, the unlock message, the read-write unlock message (wakes every waiter), the
     * publish command. Answers {} when nothing holds it, {'unfenced'} when it was left because a
     * holder is not fenced, else {'ended', field, value, ...} as the hash was.
     */
    private static final String END = """
            if redis.call('type', KEYS[1]).ok ~= 'hash' then return {} end
            local readWrite = redis.call('hexists', KEYS[1], 'mode') == 1
            if ARGV[1] == '1' then
                if readWrite then return {'unfenced'} end
                for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
                    local id = string.match(field, ':(%d+)$')
                    if id == nil or string.len(id) ~= 19 or tonumber(string.sub(id, -1)) % 2 == 0 then return {'unfenced'} end
                end
            end
            local out = {'ended'}
            for _, v in ipairs(redis.call('hgetall', KEYS[1])) do out[#out + 1] = v end
            redis.call('del', KEYS[1])
            if readWrite then
                redis.call(ARGV[4], KEYS[3], ARGV[3])
            else
                redis.call(ARGV[4], KEYS[2], ARGV[2])
            end
            return out""";

    private RedisForcedRelease() {
    }

    static List<String> end(RedissonClient client, String name, boolean onlyIfFenced, long answerMillis) {
        List<Object> keys = List.of(name, RedissonObject.prefixName("redisson_lock__channel", name),
                RedissonObject.prefixName("redisson_rwlock", name));
        List<Object> answer = RedisBackend.await(client.getScript(StringCodec.INSTANCE).<List<Object>>evalAsync(name,
                        RScript.Mode.READ_WRITE, END, RScript.ReturnType.LIST, keys, onlyIfFenced ? "1" : "0",
                        LockPubSub.UNLOCK_MESSAGE.toString(), LockPubSub.READ_UNLOCK_MESSAGE.toString(),
                        ExclusiveLock.publishCommand(client, name)).toCompletableFuture(),
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(answerMillis), answerMillis, "ending lock '" + name + "' in Redis");
        if (answer == null || answer.isEmpty()) {
            return List.of();
        }
        if ("unfenced".equals(String.valueOf(answer.get(0)))) {
            throw new IllegalStateException("lock '" + name + "' is held without a fencing token in Redis (a read-write lock, "
                    + "or an exclusive lock taken unfenced); it was left held");
        }
        return RedisLockListing.holders(answer.subList(1, answer.size()));
    }
}
