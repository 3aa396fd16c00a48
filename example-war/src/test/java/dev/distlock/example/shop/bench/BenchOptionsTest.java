package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;

import dev.distlock.example.shop.launcher.PayaraNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line of {@code shop-bench.sh}. */
class BenchOptionsTest {

    @Test
    void defaultsAreTheFullRun() {
        BenchOptions options = BenchOptions.parse(new String[0], "cmd");
        assertEquals(List.of(12_000, 64, 4_000, 1), List.of(options.orders(), options.clients(), options.warmupOrders(), options.rounds()));
        assertEquals(Variant.ALL, options.variants());
        assertEquals(List.of(Duration.ofMillis(1).dividedBy(4), Duration.ofMillis(1)), options.redisDelays());
        assertEquals(PayaraNode.PRODUCTION, options.serverJvm());
        assertTrue(options.profile());
        assertEquals(Path.of("target", "shop-bench"), options.out());
    }

    @Test
    void explicitSizesOverrideQuickWhereverTheyStand() {
        BenchOptions options = BenchOptions.parse(new String[] {"--orders", "500", "--quick", "--rounds", "3"}, "cmd");
        assertEquals(List.of(500, 16, 200, 3), List.of(options.orders(), options.clients(), options.warmupOrders(), options.rounds()));
    }

    @Test
    void delayedRunsFollowTheVariantsForEachDelay() {
        BenchOptions options = BenchOptions.parse(new String[] {"--variants", "row-lock,redisson,distlock", "--redis-delays", "1,0.25,1"}, "cmd");
        assertEquals(List.of("row-lock", "redisson", "distlock", "redisson @1ms", "distlock @1ms", "redisson @0.25ms", "distlock @0.25ms"),
                options.runs().stream().map(Variant::name).toList());
        assertEquals("distlock", options.runs().get(6).base());
        assertEquals(Duration.ofMillis(1).dividedBy(4), options.runs().get(6).redisDelay());
        assertEquals(List.of(), BenchOptions.parse(new String[] {"--redis-delays", "0"}, "cmd").redisDelays());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--redis-delays", "fast"}, "cmd"));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--redis-delays", "-1"}, "cmd"));
    }

    @Test
    void variantsAreTakenInTheGivenOrder() {
        BenchOptions options = BenchOptions.parse(new String[] {"--variants", "striped, distlock"}, "cmd");
        assertEquals(List.of(Variant.STRIPED, Variant.DISTLOCK), options.variants());
    }

    @Test
    void unknownVariantsAndOptionsAndZeroSizesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--variants", "fast"}, "cmd"));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--fast"}, "cmd"));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--clients", "0"}, "cmd"));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--orders"}, "cmd"));
    }

    @Test
    void onlyAStripedVariantSendsStripes() {
        assertEquals("{\"stock\":7}", Variant.DISTLOCK.restockBody(7));
        assertEquals("{\"stock\":7,\"stripes\":16}", Variant.STRIPED.restockBody(7));
    }
}
