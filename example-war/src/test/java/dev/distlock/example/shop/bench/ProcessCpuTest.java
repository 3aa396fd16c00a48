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
    void waitedForChildrenAreFieldsSixteenAndSeventeen() {
        String stat = "4242 (postgres) S 1 4242 4242 0 -1 4194560 91234 0 12 0 1523 377 61 29 20 0 85 0 1234 "
                + "3844892672 174661 18446744073709551615 1 1 0 0 0 0 0 4096 16796879 0 0 0 17 1 0 0 0 0 0";
        assertEquals(61 + 29, ProcessCpu.waitedForChildrenTicks(stat));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aProcessTreeCountsTheTimeOfItsChildren() throws Exception {
        // A shell whose child spins for CPU: the tree's time grows by it, the shell's own hardly.
        Process shell = new ProcessBuilder("sh", "-c", "sh -c 'i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done; sleep 30' & wait")
                .start();
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            long tree = 0;
            while (System.nanoTime() < deadline && (tree = ProcessCpu.treeNanos(shell.pid()).orElseThrow()) < 200_000_000L) {
                Thread.sleep(100);
            }
            assertTrue(tree >= 200_000_000L, "the child's CPU counted in the tree: " + tree + " ns");
            assertTrue(ProcessCpu.nanos(shell.pid()).orElseThrow() < tree / 2, "the shell's own time is not the tree's");
        } finally {
            shell.descendants().forEach(ProcessHandle::destroyForcibly);
            shell.destroyForcibly();
        }
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
    @EnabledOnOs(OS.LINUX)
    void theJitCompilersOfThisJvmHaveTakenSomeOfItsTime() {
        long compilers = ProcessCpu.compilerNanos(ProcessHandle.current().pid()).orElseThrow();
        assertTrue(compilers > 0 && compilers < ProcessCpu.nanos(ProcessHandle.current().pid()).orElseThrow(),
                "compiler threads' CPU " + compilers + " ns, a part of the process's");
        assertEquals(OptionalLong.empty(), ProcessCpu.compilerNanos(Long.MAX_VALUE));
    }

    @Test
    void aProcessThatIsNotThereHasNoTime() {
        assertEquals(OptionalLong.empty(), ProcessCpu.nanos(Long.MAX_VALUE));
    }
}
