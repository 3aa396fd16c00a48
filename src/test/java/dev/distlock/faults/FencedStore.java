package dev.distlock.faults;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.util.List;
import java.util.OptionalLong;

/**
 * The data a lock protects, in a store that checks fencing tokens itself: a value and the largest
 * token it accepted, changed together by one script in Redis. A write with a smaller token than
 * the last accepted one is refused; a write without a token (no fencing) always gets in.
 */
final class FencedStore {

    /** KEYS: value, fence. ARGV: new value, token ('' for none). 1 = written, 0 = refused. */
    private static final String WRITE = """
            if ARGV[2] ~= '' then
                local fence = tonumber(redis.call('get', KEYS[2]) or '0')
                if tonumber(ARGV[2]) < fence then
                    return 0
                end
                redis.call('set', KEYS[2], ARGV[2])
            end
            redis.call('set', KEYS[1], ARGV[1])
            return 1
            """;

    private FencedStore() {
    }

    static String valueKey(String store) {
        return "{" + store + "}:value";
    }

    static String fenceKey(String store) {
        return "{" + store + "}:fence";
    }

    /** @return whether the store took the write */
    static boolean write(RedissonClient client, String store, String value, OptionalLong token) {
        Long written = client.getScript(StringCodec.INSTANCE).eval(valueKey(store), RScript.Mode.READ_WRITE, WRITE,
                RScript.ReturnType.LONG, List.of(valueKey(store), fenceKey(store)),
                value, token.isPresent() ? Long.toString(token.getAsLong()) : "");
        return written == 1L;
    }
}
