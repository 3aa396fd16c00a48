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
        assertEquals(List.of(3_000, 64, 5_000, 3), List.of(options.orders(), options.clients(), options.warmupOrders(), options.rounds()));
        assertEquals(Variant.ALL, options.variants());
        assertEquals(List.of(Duration.ofMillis(1).dividedBy(4), Duration.ofMillis(1)), options.redisDelays());
        assertEquals(PayaraNode.PRODUCTION, options.serverJvm());
        assertEquals(List.of(), options.extraServerJvm());
        assertTrue(options.profile());
        assertEquals(List.of("distlock", "redisson", "row-lock", "striped", "combined", "distlock @0.25ms", "redisson @0.25ms",
                "distlock @1ms", "redisson @1ms", "distlock db@0.25ms", "row-lock db@0.25ms", "striped db@0.25ms", "combined db@0.25ms",
                "distlock db@1ms", "row-lock db@1ms", "striped db@1ms", "combined db@1ms"), options.runs().stream().map(Variant::name).toList());
        assertEquals(BenchOptions.POSTGRES, options.database());
        assertTrue(options.soldOut());
        assertEquals(List.of(3_000, 750), List.of(options.soldOutOrders(), options.soldOutStock()));
        assertEquals(Path.of("target", "shop-bench"), options.out());
    }

    @Test
    void quickIsOneRoundOfSmallStorms() {
        BenchOptions options = BenchOptions.parse(new String[] {"--quick"}, "cmd");
        assertEquals(List.of(300, 16, 200, 1), List.of(options.orders(), options.clients(), options.warmupOrders(), options.rounds()));
    }

    @Test
    void explicitSizesOverrideQuickWhereverTheyStand() {
        BenchOptions options = BenchOptions.parse(new String[] {"--orders", "500", "--quick", "--rounds", "3"}, "cmd");
        assertEquals(List.of(500, 16, 200, 3), List.of(options.orders(), options.clients(), options.warmupOrders(), options.rounds()));
    }

    @Test
    void quickTakesDistlockAloneWithRedisAndTheDatabaseAcrossANetworkAtOneDelay() {
        List<String> runs = List.of("distlock", "redisson", "row-lock", "striped", "combined", "distlock @1ms db@1ms");
        assertEquals(runs, BenchOptions.parse(new String[] {"--quick"}, "cmd").runs().stream().map(Variant::name).toList());
        assertEquals(runs, BenchOptions.quick(Path.of("p"), Path.of("w"), Path.of("s"), Path.of("o"), "cmd").runs().stream()
                .map(Variant::name).toList());
        assertEquals(PayaraNode.SMALL_MACHINE, BenchOptions.quick(Path.of("p"), Path.of("w"), Path.of("s"), Path.of("o"), "cmd").serverJvm());
    }

    @Test
    void serverJvmOptionsAreAddedInTheirOrderAndReported() {
        BenchOptions options = BenchOptions.parse(new String[] {"--server-jvm-option", "-XX:StartFlightRecording=filename=a.jfr",
                "--small-jvm", "--server-jvm-option=-Xlog:gc"}, "cmd");
        assertEquals(List.of("-XX:StartFlightRecording=filename=a.jfr", "-Xlog:gc"), options.extraServerJvm());
        assertEquals(PayaraNode.SMALL_MACHINE, options.serverJvm());
        assertTrue(options.serverJvmText().contains("C1 only") && options.serverJvmText().endsWith(
                "and `-XX:StartFlightRecording=filename=a.jfr -Xlog:gc` (`--server-jvm-option`)"), options.serverJvmText());
        assertTrue(BenchOptions.parse(new String[0], "cmd").serverJvmText().startsWith("`-Xms512m -Xmx1g`: the JDK's default JIT (C2)"));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--server-jvm-option", "Xmx2g"}, "cmd"));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--server-jvm-option"}, "cmd"));
    }

    @Test
    void delayedRunsFollowTheVariantsForEachDelay() {
        BenchOptions options = BenchOptions.parse(new String[] {"--variants", "row-lock,redisson,distlock", "--redis-delays", "1,0.25,1",
                "--database-delays", "0.25"}, "cmd");
        assertEquals(List.of("row-lock", "redisson", "distlock", "redisson @1ms", "distlock @1ms", "redisson @0.25ms", "distlock @0.25ms",
                        "row-lock db@0.25ms", "distlock db@0.25ms"),
                options.runs().stream().map(Variant::name).toList());
        assertEquals("distlock", options.runs().get(6).base());
        assertEquals(Duration.ofMillis(1).dividedBy(4), options.runs().get(6).redisDelay());
        assertEquals("row-lock", options.runs().get(7).base());
        assertEquals(Duration.ZERO, options.runs().get(7).redisDelay());
        assertEquals(Duration.ofMillis(1).dividedBy(4), options.runs().get(7).databaseDelay());
        assertTrue(options.runs().get(7).describe().contains("the database behind a proxy that delays each byte 0.25 ms each way"));
        assertEquals(List.of(), BenchOptions.parse(new String[] {"--database-delays", "0"}, "cmd").databaseDelays());
        assertEquals(List.of(), BenchOptions.parse(new String[] {"--redis-delays", "0"}, "cmd").redisDelays());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--redis-delays", "fast"}, "cmd"));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--redis-delays", "-1"}, "cmd"));
    }

    @Test
    void theDatabaseIsPostgresqlH2OrAUrlAndAnythingElseIsRefusedByName() {
        assertEquals(BenchOptions.H2, BenchOptions.parse(new String[] {"--database", "h2"}, "cmd").database());
        assertTrue(BenchOptions.parse(new String[] {"--database", "postgres"}, "cmd").databaseChosen());
        assertEquals("jdbc:postgresql://db:5432/shop", BenchOptions.parse(new String[] {"--database", "jdbc:postgresql://db:5432/shop"},
                "cmd").database());
        IllegalArgumentException oracle = assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--database", "oracle"}, "cmd"));
        assertTrue(oracle.getMessage().contains("--database") && oracle.getMessage().contains("'oracle'"), oracle.getMessage());
        assertTrue(!BenchOptions.parse(new String[] {"--no-sold-out"}, "cmd").soldOut());
    }

    @Test
    void aProxyTakesTheDatabasesPortInItsUrl() {
        assertEquals("jdbc:postgresql://127.0.0.1:40001/postgres?user=postgres",
                ShopBench.withPort("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres", 40001));
        assertEquals("jdbc:h2:tcp://127.0.0.1:40001/mem:shop;LOCK_TIMEOUT=30000",
                ShopBench.withPort("jdbc:h2:tcp://127.0.0.1:9092/mem:shop;LOCK_TIMEOUT=30000", 40001));
        assertThrows(IllegalArgumentException.class, () -> ShopBench.withPort("jdbc:h2:mem:shop", 40001));
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

    @Test
    void stripedTakesAnotherNumberOfStripes() {
        BenchOptions options = BenchOptions.parse(new String[] {"--variants", "striped-4,striped"}, "cmd");
        assertEquals(List.of(4, 16), options.variants().stream().map(Variant::stripes).toList());
        assertEquals("striped-4", options.variants().get(0).name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--variants", "striped-1"}, "cmd"));
        assertEquals("striped-N: N must be between 2 and 64 (the shop's limit), was 1", e.getMessage());
    }
}
