package dev.distlock.example.shop.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CPU time of processes from the operating system's counters. */
class ProcessCpuTest {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Test
    void userAndSystemTicksAreCountedFromTheEndOfTheCommandName() {
        String stat = "4242 (java (pay ara) x) S 1 4242 4242 0 -1 4194560 91234 0 12 0 1523 377 0 0 20 0 85 0 1234 "
                + "3844892672 174661 18446744073709551615 1 1 0 0 0 0 0 4096 16796879 0 0 0 17 1 0 0 0 0 0";
        assertEquals(1523 + 377, ProcessCpu.ticks(stat));
    }

    @Test
    void whatIsNoStatLineIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ProcessCpu.ticks("4242 (java) S 1 2"));
        assertThrows(IllegalArgumentException.class, () -> ProcessCpu.ticks("garbage"));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void theCpuTimeOfThisProcessGrowsWhileItWorks() {
        assertTrue(ProcessCpu.ticksPerSecond() > 0);
        long pid = ProcessHandle.current().pid();
        long before = ProcessCpu.nanos(pid).orElseThrow();
        // Spin until this thread has had 100 ms of CPU (10 ticks), however long the busy machine takes to give it.
        long spinUntil = THREADS.getCurrentThreadCpuTime() + 100_000_000L;
        while (THREADS.getCurrentThreadCpuTime() < spinUntil) {
            Thread.onSpinWait();
        }
        assertTrue(ProcessCpu.nanos(pid).orElseThrow() > before, "100 ms of spinning shows in /proc");
    }

    @Test
    void aProcessThatIsNotThereHasNoTime() {
        assertEquals(OptionalLong.empty(), ProcessCpu.nanos(Long.MAX_VALUE));
    }
}
