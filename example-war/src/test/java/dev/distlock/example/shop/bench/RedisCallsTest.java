package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RedisCallsTest {

    private static final String INFO = """
            # Commandstats\r
            cmdstat_evalsha:calls=1200,usec=9000,usec_per_call=7.50,rejected_calls=0,failed_calls=0\r
            cmdstat_subscribe:calls=300,usec=600,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r
            cmdstat_client|setname:calls=4,usec=4,usec_per_call=1.00,rejected_calls=0,failed_calls=0\r
            cmdstat_info:calls=7,usec=70,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r
            """;

    @Test
    void readsCallsByCommandSubcommandsApart() {
        assertEquals(Map.of("evalsha", 1200L, "subscribe", 300L, "client|setname", 4L, "info", 7L), RedisCalls.parse(INFO));
    }

    @Test
    void perOrderLeavesOutTheBenchmarksOwnReadingAndWhatDidNotRun() {
        Map<String, Long> before = Map.of("evalsha", 200L, "subscribe", 100L, "info", 6L, "client|setname", 4L);
        RedisCalls calls = RedisCalls.perOrder(before, RedisCalls.parse(INFO), 500);
        assertEquals(List.of("evalsha", "subscribe"), List.copyOf(calls.perOrder().keySet()));
        assertEquals(2.0, calls.of("evalsha"));
        assertEquals(0.4, calls.of("subscribe"), 1e-9);
        assertEquals("2.40: evalsha 2.00, subscribe 0.40", calls.text());
    }

    @Test
    void nothingReadIsNoBreakdownNotZeroCommands() {
        assertEquals(RedisCalls.NONE, RedisCalls.perOrder(Map.of(), RedisCalls.parse(INFO), 10));
        assertEquals("–", RedisCalls.NONE.text());
        assertEquals(Map.of(), RedisCalls.count(1)); // nothing listens on port 1
    }

    @Test
    void namesTheMostFrequentAndSumsTheRest() {
        Map<String, Long> after = Map.of("a", 9L, "b", 8L, "c", 7L, "d", 6L, "e", 5L, "f", 4L, "g", 3L, "h", 2L, "i", 1L, "j", 1L);
        RedisCalls sorted = RedisCalls.perOrder(Map.of("x", 0L), after, 1);
        assertEquals("46.00: a 9.00, b 8.00, c 7.00, d 6.00, e 5.00, f 4.00, g 3.00, h 2.00, other 2.00", sorted.text());
        assertEquals(46.0, sorted.total());
    }

    @Test
    void aLineWithoutCallsIsAnError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisCalls.parse("cmdstat_get:usec=1"));
        assertEquals("not a commandstats line: cmdstat_get:usec=1", e.getMessage());
    }
}
