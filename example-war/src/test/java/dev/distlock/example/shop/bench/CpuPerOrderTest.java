package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** CPU time per order placed, from two readings of the processes' counters around a storm. */
class CpuPerOrderTest {

    @Test
    void perOrderIsTheDifferenceOverTheOrdersPlaced() {
        long[] before = {1_000_000_000L, 0, 50_000_000L, 2_000_000_000L};
        long[] after = {3_000_000_000L, 100_000_000L, 250_000_000L, 2_400_000_000L};
        CpuPerOrder cpu = CpuPerOrder.Meter.perOrder(before, after, 200);
        assertEquals(List.of(10.0, 0.5, 1.0, 2.0), List.of(cpu.servers(), cpu.redis(), cpu.database(), cpu.client()));
        assertEquals(11.5, cpu.total(), 1e-9);
        assertEquals("10.00 + 0.50 + 1.00 = 11.50", cpu.text());
        assertEquals("2.00", cpu.clientText());
    }

    @Test
    void aProcessNotReadIsShownAsUnknownAndLeftOutOfTheTotal() {
        CpuPerOrder cpu = CpuPerOrder.Meter.perOrder(new long[] {0, 0, -1, 0}, new long[] {200_000_000L, 0, -1, 0}, 100);
        assertEquals("2.00 + 0.00 + ? = 2.00", cpu.text());
        assertEquals("–", CpuPerOrder.Meter.perOrder(new long[4], new long[4], 0).text(), "no order placed: nothing per order");
    }
}
