package dev.distlock.example.shop.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * CPU time of a process, user and system together, from the operating system's counters
 * ({@code /proc/<pid>/stat} on Linux, in clock ticks of 10 ms), or of this JVM from the JVM.
 */
final class ProcessCpu {

    /** Linux's {@code USER_HZ}: what {@code getconf CLK_TCK} prints, the same on every Linux there is. */
    private static final long TICKS_PER_SECOND = 100;

    private ProcessCpu() {
    }

    /** CPU time of process {@code pid} so far, in nanoseconds; empty where it cannot be read (gone, not Linux). */
    static OptionalLong nanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name, in parentheses, may hold spaces: count the fields after its end.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (fields 14 and 15)
            return OptionalLong.of(ticks * 1_000_000_000L / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** CPU time of this JVM so far, in nanoseconds (every thread, the benchmark's clients and proxies included). */
    static long ownNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean cpu) {
            return cpu.getProcessCpuTime();
        }
        return nanos(ProcessHandle.current().pid()).orElse(0);
    }
}
