package dev.distlock.security;

import dev.distlock.redis.RedisLocks;
import dev.distlock.KeyBounds;
import dev.distlock.testing.EngineAccess;

import dev.distlock.DistributedLocks;
import dev.distlock.LockKey;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockMode;
import dev.distlock.internal.core.MethodKeys;
import org.junit.jupiter.api.Test;
import org.redisson.RedissonObject;
import org.redisson.connection.CRC16;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Properties of lock keys built from user values, on tens of thousands of seeded random values
 * drawn from pieces that matter: the separator, hash-tag braces, {@code %} and the very escapes
 * the encoding writes ({@code %3A} ...), unicode (accents, CJK, an emoji's surrogate pair), NUL,
 * and the empty string. Each property is also run against a deliberately broken encoder, which it
 * must catch: that is the evidence that the property tests the protection, not just the data.
 */
class KeyEncodingPropertiesTest {

    private static final long SEED = 20_260_522L;
    private static final int VALUES = 40_000;
    private static final int WORDS = 30_000;

    /** What values are made of. Escapes are pieces of their own, so a value and its escaped spelling both occur. */
    private static final String[] PIECES = {
            ":", "{", "}", "%", "%3A", "%7B", "%7D", "%25", "%3a", "3A", "7B", "25", "a", "b", "-", " ", "?",
            "é", "ß", "中", "\uD83D\uDE00", "\u0000", "::", "{}", "}{",
    };

    /** The encoding as the library has it. */
    private static final UnaryOperator<String> REAL = KeyBounds::encode;
    /** No escaping at all. */
    private static final UnaryOperator<String> IDENTITY = value -> value;
    /** Escapes the separator and the braces, but not {@code %}: no longer reversible. */
    private static final UnaryOperator<String> NO_PERCENT = value -> value.replace(":", "%3A").replace("{", "%7B").replace("}", "%7D");
    /** Escapes only the separator: braces pass, so a value can pick the hash slot. */
    private static final UnaryOperator<String> ONLY_COLON = value -> value.replace("%", "%25").replace(":", "%3A");

    private final Random random = new Random(SEED);

    // ---------------------------------------------------------------- one value

    @Test
    void encodingIsInjectiveReversibleAndLeavesNoSeparatorOrBrace() {
        List<String> values = values(VALUES);
        assertEquals(Optional.empty(), collision(REAL, values));
        int checked = 0;
        for (String value : values) {
            String encoded = KeyBounds.encode(value);
            assertEquals(value, decode(encoded), () -> "[" + value + "] does not come back from [" + encoded + "]");
            for (int i = 0; i < encoded.length(); i++) {
                char c = encoded.charAt(i);
                if (c == ':' || c == '{' || c == '}') {
                    fail("[" + value + "] encodes to [" + encoded + "], which has '" + c + "'");
                }
                if (c == '%' && !List.of("25", "3A", "7B", "7D").contains(encoded.substring(i + 1, Math.min(i + 3, encoded.length())))) {
                    fail("[" + encoded + "] has a '%' that starts no escape");
                }
            }
            checked++;
        }
        assertEquals(VALUES, checked);
        assertTrue(values.contains("") && values.contains(":") && values.contains("%3A"), "the generator makes the hard cases");
    }

    @Test
    void twin_theInjectivityCheckCatchesAnEncoderThatLeavesPercentAlone() {
        Optional<String> found = collision(NO_PERCENT, values(VALUES));
        assertTrue(found.isPresent(), "a value and its escaped spelling encode alike, and the property must find it");
    }

    // ---------------------------------------------------------------- two values in one key

    /** Two placeholders, as a user writes them; and a template with a {@link LockKey} parameter. */
    static class Keys {
        void pair(String x, String y) {
        }

        void keyed(String x, @LockKey String y) {
        }

        void one(String x) {
        }
    }

    @Test
    void twoPlaceholdersNeverCollideThroughTheRealKeyPath() throws Exception {
        MethodKeys pair = MethodKeys.bind(List.of("a:{x}:{y}"), Keys.class.getDeclaredMethod("pair", String.class, String.class),
                LockMode.EXCLUSIVE, "Keys.pair");
        MethodKeys keyed = MethodKeys.bind(List.of("a:{x}"), Keys.class.getDeclaredMethod("keyed", String.class, String.class),
                LockMode.EXCLUSIVE, "Keys.keyed");
        List<String[]> pairs = pairs(WORDS);
        Map<String, String> seenPair = new HashMap<>();
        Map<String, String> seenKeyed = new HashMap<>();
        int rendered = 0;
        int blank = 0;
        for (String[] xy : pairs) {
            if (xy[0].isBlank() || xy[1].isBlank()) {
                // A lock key needs a value: blank ones are refused rather than locking "a::".
                assertThrows(IllegalArgumentException.class, () -> pair.render(new Object[]{xy[0], xy[1]}));
                blank++;
                continue;
            }
            String key = pair.render(new Object[]{xy[0], xy[1]}).get(0);
            assertEquals(templateKey(REAL, xy), key, "the local renderer the twin uses is the library's");
            expectNew(seenPair, key, xy);
            expectNew(seenKeyed, keyed.render(new Object[]{xy[0], xy[1]}).get(0), xy);
            rendered++;
        }
        assertTrue(rendered > 20_000, rendered + " pairs rendered");
        assertTrue(blank > 0, "blank values were among them");
        System.out.println("two placeholders: " + rendered + " pairs rendered through MethodKeys (twice), "
                + seenPair.size() + " distinct keys, " + blank + " blank pairs refused");
    }

    @Test
    void twin_thePairCheckCatchesAnEncoderThatLeavesTheSeparator() {
        Map<String, String> seen = new HashMap<>();
        for (String[] xy : pairs(WORDS)) {
            String earlier = seen.putIfAbsent(templateKey(IDENTITY, xy), xy[0] + "|" + xy[1]);
            if (earlier != null && !earlier.equals(xy[0] + "|" + xy[1])) {
                return; // found: e.g. ("p:q", "r") and ("p", "q:r") both give a:p:q:r
            }
        }
        fail("no collision found for an encoder that leaves ':' alone");
    }

    // ---------------------------------------------------------------- Redis Cluster hash slot

    @Test
    void crc16AndSlotAreRedis() {
        assertEquals(0x31C3, crc16("123456789".getBytes(StandardCharsets.US_ASCII)), "CRC16/XMODEM check value");
        assertEquals(slot("user1000"), slot("{user1000}.following"));
        assertEquals(slot("{user1000}.following"), slot("{user1000}.followers"));
        assertEquals(crc16("foo{}{bar}".getBytes(StandardCharsets.UTF_8)) & 0x3FFF, slot("foo{}{bar}"), "empty tag: whole key");
        assertEquals(slot("{bar"), slot("foo{{bar}}zap"), "from the first '{' to the first '}' after it");
        for (String value : values(2_000)) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            assertEquals(CRC16.crc16(bytes), crc16(bytes), "same CRC16 as Redisson's for [" + value + "]");
        }
    }

    @Test
    void aUserValueCannotPickTheHashSlot() {
        DistributedLocks locks = RedisLocks.builder(() -> {
            throw new LockServiceUnavailableException("no Redis needed to name keys", null);
        }).build();
        int checked = 0;
        for (String value : values(VALUES)) {
            if (value.isBlank()) {
                continue;
            }
            String redisKey = EngineAccess.lockName(locks, "order:" + KeyBounds.encode(value), false);
            assertEquals(-1, redisKey.indexOf('{'), redisKey);
            assertEquals(crc16(redisKey.getBytes(StandardCharsets.UTF_8)) & 0x3FFF, slot(redisKey), "no hash tag: the whole key is hashed");
            // Redisson's lock keeps its pub/sub channel and read-write timeouts in the lock's slot
            // by wrapping the name in braces; a name without braces of its own keeps that true.
            assertEquals(slot(redisKey), slot(RedissonObject.prefixName("redisson_lock__channel", redisKey)));
            assertEquals(slot(redisKey), slot(RedissonObject.suffixName(redisKey, "uuid:1") + ":rwlock_timeout"));
            checked++;
        }
        assertTrue(checked > VALUES / 2, checked + " keys checked");
        System.out.println("hash slot: " + checked + " keys checked");

        // An attacker's values all carrying the same hash tag spread over the slots once encoded.
        Set<Integer> slots = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            slots.add(slot("distlock:lock:order:" + KeyBounds.encode("{hot}" + i)));
        }
        assertTrue(slots.size() > 900, "1,000 keys fell into only " + slots.size() + " slots");
    }

    @Test
    void twin_theSlotCheckCatchesAnEncoderThatLetsBracesThrough() {
        Set<Integer> slots = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            slots.add(slot("distlock:lock:order:" + ONLY_COLON.apply("{hot}" + i)));
        }
        assertEquals(Set.of(slot("hot")), slots, "every key in the slot the value chose");
    }

    // ---------------------------------------------------------------- length

    @Test
    void aKeyLongerThanTheBoundFailsNamingTheLimit() throws Exception {
        MethodKeys one = MethodKeys.bind(List.of("{x}"), Keys.class.getDeclaredMethod("one", String.class), LockMode.EXCLUSIVE, "Keys.one");
        assertEquals(KeyBounds.MAX_KEY_LENGTH, one.render(new Object[]{"k".repeat(KeyBounds.MAX_KEY_LENGTH)}).get(0).length());
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> one.render(new Object[]{"k".repeat(KeyBounds.MAX_KEY_LENGTH + 1)}));
        assertTrue(tooLong.getMessage().contains("at most 1024") && tooLong.getMessage().contains("Keys.one"), tooLong.getMessage());
        // The bound is on the encoded key: 342 colons are 1,026 characters once escaped.
        IllegalArgumentException escaped = assertThrows(IllegalArgumentException.class, () -> one.render(new Object[]{":".repeat(342)}));
        assertTrue(escaped.getMessage().contains("1026 characters long; at most 1024"), escaped.getMessage());

        DistributedLocks locks = RedisLocks.builder(() -> {
            throw new LockServiceUnavailableException("not reached", null);
        }).build();
        IllegalArgumentException programmatic = assertThrows(IllegalArgumentException.class,
                () -> locks.exclusive("k".repeat(KeyBounds.MAX_KEY_LENGTH + 1)));
        assertTrue(programmatic.getMessage().contains("longer than 1024"), programmatic.getMessage());
    }

    // ---------------------------------------------------------------- helpers

    private List<String> values(int count) {
        List<String> values = new ArrayList<>(count + PIECES.length + 1);
        values.add("");
        values.addAll(List.of(PIECES));
        while (values.size() < count) {
            values.add(word(random.nextInt(7)));
        }
        return values;
    }

    private String word(int pieces) {
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < pieces; i++) {
            word.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return word.toString();
    }

    /** Pairs made to collide when a separator is not escaped: every split of one word at a ':' . */
    private List<String[]> pairs(int words) {
        List<String[]> pairs = new ArrayList<>();
        for (int i = 0; i < words; i++) {
            String word = word(1 + random.nextInt(6));
            for (int at = word.indexOf(':'); at >= 0; at = word.indexOf(':', at + 1)) {
                pairs.add(new String[]{word.substring(0, at), word.substring(at + 1)});
            }
            pairs.add(new String[]{word, word(random.nextInt(4))});
        }
        return pairs;
    }

    private static String templateKey(UnaryOperator<String> encoder, String[] xy) {
        return "a:" + encoder.apply(xy[0]) + ":" + encoder.apply(xy[1]);
    }

    private static void expectNew(Map<String, String> seen, String key, String[] xy) {
        String pair = "(" + xy[0] + ", " + xy[1] + ")";
        String earlier = seen.putIfAbsent(key, pair);
        if (earlier != null && !earlier.equals(pair)) {
            fail(earlier + " and " + pair + " both lock " + key);
        }
    }

    private static Optional<String> collision(UnaryOperator<String> encoder, List<String> values) {
        Map<String, String> seen = new HashMap<>();
        for (String value : values) {
            String earlier = seen.putIfAbsent(encoder.apply(value), value);
            if (earlier != null && !earlier.equals(value)) {
                return Optional.of("[" + earlier + "] and [" + value + "]");
            }
        }
        return Optional.empty();
    }

    /** The inverse of {@link KeyEncoding#encode}: the library has none, its existence is the proof. */
    private static String decode(String encoded) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%' && encoded.charAt(i + 1) == 'u') {
                out.append((char) Integer.parseInt(encoded.substring(i + 2, i + 6), 16));
                i += 5;
            } else if (c == '%') {
                out.append((char) Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Redis Cluster's HASH_SLOT over the key's UTF-8 bytes, as cluster.c keyHashSlot computes it. */
    static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        while (start < bytes.length && bytes[start] != '{') {
            start++;
        }
        if (start < bytes.length) {
            int end = start + 1;
            while (end < bytes.length && bytes[end] != '}') {
                end++;
            }
            if (end < bytes.length && end > start + 1) {
                byte[] tag = new byte[end - start - 1];
                System.arraycopy(bytes, start + 1, tag, 0, tag.length);
                return crc16(tag) & 0x3FFF;
            }
        }
        return crc16(bytes) & 0x3FFF;
    }

    /** CRC16/XMODEM: polynomial 0x1021, initial 0, no reflection, as Redis uses. */
    static int crc16(byte[] bytes) {
        int crc = 0;
        for (byte b : bytes) {
            crc ^= (b & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xFFFF;
        }
        return crc;
    }
}
