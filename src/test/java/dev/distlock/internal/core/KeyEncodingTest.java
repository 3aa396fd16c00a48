package dev.distlock.internal.core;

import dev.distlock.KeyBounds;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

/** Encoded values cannot reach into another key or pick a cluster slot, and never collide. */
class KeyEncodingTest {

    /** The characters that matter, the ones escapes are made of, and a little else. */
    private static final String TRICKY = "%:{}3A7BD25ab ";

    @Test
    void separatorsHashTagsAndPercentAreEscaped() {
        assertEquals("a%3Ab%7Bc%7D%25", KeyBounds.encode("a:b{c}%"));
    }

    @Test
    void plainValuesAreKeptAsTheyAre() {
        String plain = "SKU-42/ä é";
        assertSame(plain, KeyBounds.encode(plain));
    }

    @Test
    void aValueAndItsEscapedSpellingDiffer() {
        assertNotEquals(KeyBounds.encode("a:b"), KeyBounds.encode("a%3Ab"));
        assertNotEquals(KeyBounds.encode("{x}"), KeyBounds.encode("%7Bx%7D"));
    }

    @Test
    void injectiveOnEveryShortStringOfTheTrickyCharacters() {
        Map<String, String> seen = new HashMap<>();
        List<String> level = List.of("");
        for (int length = 0; length <= 4; length++) {
            for (String value : level) {
                check(value, seen, "exhaustive");
            }
            level = level.stream().flatMap(prefix -> TRICKY.chars().mapToObj(c -> prefix + (char) c)).toList();
        }
    }

    @Test
    void injectiveOnRandomStrings() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < 50_000; i++) {
            StringBuilder value = new StringBuilder();
            int length = random.nextInt(16);
            for (int j = 0; j < length; j++) {
                value.append(random.nextInt(4) == 0
                        ? (char) random.nextInt(0x3000) // anything, including controls and non-ASCII
                        : TRICKY.charAt(random.nextInt(TRICKY.length())));
            }
            check(value.toString(), seen, "seed " + seed);
        }
    }

    private static void check(String value, Map<String, String> seen, String context) {
        String encoded = KeyBounds.encode(value);
        if (encoded.indexOf(':') >= 0 || encoded.indexOf('{') >= 0 || encoded.indexOf('}') >= 0) {
            fail(context + ": [" + value + "] encodes to [" + encoded + "], which still has a separator or a hash tag");
        }
        String earlier = seen.putIfAbsent(encoded, value);
        if (earlier != null && !earlier.equals(value)) {
            fail(context + ": [" + earlier + "] and [" + value + "] both encode to [" + encoded + "]");
        }
    }
}
