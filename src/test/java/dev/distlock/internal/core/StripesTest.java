package dev.distlock.internal.core;

import dev.distlock.redis.RedisLocks;
import dev.distlock.testkit.backend.OtherOwner;

import dev.distlock.DistributedLocks;
import dev.distlock.LockMode;
import dev.distlock.Stripes;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Walks over stripes, and the keys of all stripes being the keys the annotation locks one stripe under. */
@Timeout(60)
class StripesTest {

    @Test
    void aWalkVisitsEveryStripeOnceInOrderFromItsStart() {
        Stripes stripes = Stripes.of(16);
        for (int i = 0; i < 1_000; i++) {
            int[] walk = stripes.walk();
            assertArrayEquals(IntStream.range(0, 16).toArray(), Arrays.stream(walk).sorted().toArray(), Arrays.toString(walk));
            for (int step = 1; step < walk.length; step++) {
                assertEquals((walk[step - 1] + 1) % 16, walk[step], Arrays.toString(walk));
            }
        }
    }

    @Test
    void aPickIsAStripeThatHeldEnoughChosenInProportionToItsStock() {
        Stripes stripes = Stripes.of(4);
        int[] known = {0, 30, 10, 1};
        int[] picked = new int[4];
        for (int i = 0; i < 41_000; i++) {
            picked[stripes.pick(known, 1).orElseThrow()]++;
        }
        assertEquals(0, picked[0], "an empty stripe is never picked");
        // 30 : 10 : 1 of 41,000 picks: 30,000, 10,000 and 1,000 expected, each within a wide margin.
        assertTrue(Math.abs(picked[1] - 30_000) < 1_000 && Math.abs(picked[2] - 10_000) < 800 && Math.abs(picked[3] - 1_000) < 300,
                Arrays.toString(picked));
        for (int i = 0; i < 1_000; i++) {
            assertEquals(1, stripes.pick(known, 11).orElseThrow(), "only stripe 1 holds 11");
        }
    }

    @Test
    void noPickWhenNoStripeHoldsEnoughAndWrongInputIsRefusedByName() {
        Stripes stripes = Stripes.of(3);
        assertTrue(stripes.pick(new int[] {0, 0, 0}, 1).isEmpty());
        assertTrue(stripes.pick(new int[] {2, 2, 2}, 3).isEmpty(), "6 in all, but no one stripe holds 3");
        assertTrue(stripes.pick(new int[] {-5, 0, 0}, 1).isEmpty(), "a stripe below zero holds nothing to take");
        IllegalArgumentException length = assertThrows(IllegalArgumentException.class, () -> stripes.pick(new int[] {1, 1}, 1));
        assertTrue(length.getMessage().contains("3 stripes") && length.getMessage().contains("2 value(s)"), length.getMessage());
        assertThrows(IllegalArgumentException.class, () -> stripes.pick(new int[] {1, 1, 1}, 0));
        assertThrows(NullPointerException.class, () -> stripes.pick(null, 1));
        assertEquals(0, Stripes.of(1).pick(new int[] {Integer.MAX_VALUE}, 1).orElseThrow());
        assertTrue(Stripes.of(2).pick(new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE}, 1).isPresent(), "no overflow of the total");
    }

    @Test
    void randomWalksStartEverywhere() {
        Stripes stripes = Stripes.of(16);
        Set<Integer> starts = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            starts.add(stripes.walk()[0]);
        }
        assertEquals(16, starts.size(), "starts seen: " + starts);
    }

    @Test
    void aRoutingKeyAlwaysStartsAtTheSameStripeAndKeysSpread() {
        Stripes stripes = Stripes.of(16);
        assertArrayEquals(stripes.walk("customer-42"), stripes.walk("customer-42"));
        Set<Integer> starts = new HashSet<>();
        for (int customer = 0; customer < 1_000; customer++) {
            starts.add(stripes.walk("customer-" + customer)[0]);
            starts.add(stripes.walk(customer << 16)[0]); // hash codes that differ only in their high bits
        }
        assertEquals(16, starts.size(), "starts seen: " + starts);
        assertThrows(NullPointerException.class, () -> stripes.walk(null));
    }

    @Test
    void oneStripeIsAPlainLock() {
        Stripes one = Stripes.of(1);
        assertArrayEquals(new int[] {0}, one.walk());
        assertArrayEquals(new String[] {"stock:A:0"}, one.keys("stock:A"));
    }

    @Test
    void aCountOutOfRangeIsRefusedNamingIt() {
        for (int bad : new int[] {0, -3, Stripes.MAX_COUNT + 1}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> Stripes.of(bad));
            assertTrue(refused.getMessage().contains("was " + bad), refused.getMessage());
        }
        assertEquals(Stripes.MAX_COUNT, Stripes.of(Stripes.MAX_COUNT).count());
        assertThrows(IllegalArgumentException.class, () -> Stripes.of(4).keys(" "));
    }

    @Test
    void theKeysOfAllStripesAreTheKeysTheAnnotationRendersForEachStripe() {
        Stripes stripes = Stripes.of(12);
        MethodKeys template = MethodKeys.bind(List.of("stock:{sku}:{quantity}"), SampleShop.method("reserve"),
                LockMode.EXCLUSIVE, "SampleShop.reserve(String,int)");
        for (String sku : List.of("A-1", "a:b{c}%")) {
            String[] all = stripes.keys("stock:" + DistributedLocks.encode(sku));
            for (int stripe = 0; stripe < stripes.count(); stripe++) {
                assertEquals(template.render(new Object[] {sku, stripe}), List.of(all[stripe]), "stripe " + stripe + " of " + sku);
            }
        }
    }

    @Test
    void holdingEveryStripeExcludesEachStripeAndOneStripeExcludesOnlyItself() throws Exception {
        DistributedLocks locks = RedisLocks.builder(TestRedis.sharedClient()).keyPrefix(TestRedis.uniquePrefix("stripes")).build();
        Stripes stripes = Stripes.of(8);
        String[] all = stripes.keys("stock:X");
        try (OtherOwner holder = OtherOwner.holds(locks.exclusive(all))) {
            for (String stripe : all) {
                assertFalse(OtherOwner.gets(locks.exclusive(stripe)), stripe + " while every stripe is held");
            }
        }
        try (OtherOwner holder = OtherOwner.holds(locks.exclusive("stock:X:5"))) {
            assertFalse(OtherOwner.gets(locks.exclusive(all)), "every stripe while stripe 5 is held");
            assertTrue(OtherOwner.gets(locks.exclusive("stock:X:4")), "stripe 4 while stripe 5 is held");
        }
        assertTrue(OtherOwner.gets(locks.exclusive(all)), "every stripe once all are free");
        locks.close();
    }
}
