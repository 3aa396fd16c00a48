package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The command line of {@code shop-bench.sh}. */
class BenchOptionsTest {

    @Test
    void defaultsAreTheFullRun() {
        BenchOptions options = BenchOptions.parse(new String[0], "cmd");
        assertEquals(List.of(12_000, 64, 1_500, 1), List.of(options.orders(), options.clients(), options.warmupOrders(), options.rounds()));
        assertEquals(Variant.ALL, options.variants());
        assertEquals(Path.of("target", "shop-bench"), options.out());
    }

    @Test
    void explicitSizesOverrideQuickWhereverTheyStand() {
        BenchOptions options = BenchOptions.parse(new String[] {"--orders", "500", "--quick", "--rounds", "3"}, "cmd");
        assertEquals(List.of(500, 16, 200, 3), List.of(options.orders(), options.clients(), options.warmupOrders(), options.rounds()));
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
