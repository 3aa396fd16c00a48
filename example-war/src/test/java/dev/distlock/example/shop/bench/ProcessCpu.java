package dev.distlock.example.shop.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * CPU time of a process, user and system together, from the operating system's counters
 * ({@code /proc/<pid>/stat} on Linux, in clock ticks), or of this JVM from the JVM.
 */
final class ProcessCpu {

    /** Linux's {@code USER_HZ} on every architecture it runs on, for when {@code getconf} cannot be asked. */
    private static final long USUAL_TICKS_PER_SECOND = 100;
    private static final long TICKS_PER_SECOND = ticksPerSecond();

    private ProcessCpu() {
    }

    /** CPU time of process {@code pid} so far, in nanoseconds; empty where it cannot be read (gone, not Linux). */
    static OptionalLong nanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return OptionalLong.of(ticks(stat) * 1_000_000_000L / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * CPU time of process {@code pid} and of every process under it, in nanoseconds: its own, that of
     * its children it has waited for (those that ended), and that of each live descendant. PostgreSQL
     * serves each connection in a process of its own under the server's. Empty where the process
     * itself cannot be read.
     */
    static OptionalLong treeNanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            long ticks = ticks(stat) + waitedForChildrenTicks(stat);
            Optional<ProcessHandle> process = ProcessHandle.of(pid);
            if (process.isPresent()) {
                for (ProcessHandle descendant : process.get().descendants().toList()) {
                    try {
                        String own = Files.readString(Path.of("/proc", Long.toString(descendant.pid()), "stat"));
                        ticks += ticks(own) + waitedForChildrenTicks(own);
                    } catch (IOException | RuntimeException ended) {
                        // it ended since it was listed: its time is now its parent's, counted above or not at all
                    }
                }
            }
            return OptionalLong.of(ticks * 1_000_000_000L / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * CPU time of the JIT compiler threads of JVM {@code pid} so far ({@code C1 CompilerThre...},
     * {@code C2 CompilerThre...}; compiler threads that ended took theirs with them), in
     * nanoseconds; empty where the process cannot be read.
     */
    static OptionalLong compilerNanos(long pid) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (java.util.stream.Stream<Path> threads = Files.list(tasks)) {
            long ticks = 0;
            for (Path thread : threads.toList()) {
                try {
                    String name = Files.readString(thread.resolve("comm")).strip();
                    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
                        ticks += ticks(Files.readString(thread.resolve("stat")));
                    }
                } catch (IOException | RuntimeException ended) {
                    // the thread ended since the listing
                }
            }
            return OptionalLong.of(ticks * 1_000_000_000L / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** Fields 16 and 17 ({@code cutime}, {@code cstime}): the user and system time of ended children it waited for. */
    static long waitedForChildrenTicks(String stat) {
        return sumOfFields(stat, 16, 17);
    }

    /**
     * User plus system time in a {@code /proc/<pid>/stat} line, in clock ticks: fields 14 and 15
     * ({@code utime}, {@code stime}; proc(5)).
     *
     * @throws IllegalArgumentException if the line is not one
     */
    static long ticks(String stat) {
        return sumOfFields(stat, 14, 15);
    }

    /** Fields {@code first} and {@code second} of a stat line (numbered from 1, as proc(5) does), added. */
    private static long sumOfFields(String stat, int first, int second) {
        // The command name, in parentheses, may hold spaces and parentheses: count from its end.
        int nameEnd = stat.lastIndexOf(')');
        String[] fields = nameEnd < 0 ? new String[0] : stat.substring(nameEnd + 1).strip().split(" ");
        // fields[0] is field 3 (the state).
        if (fields.length < second - 2) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + stat);
        }
        return Long.parseLong(fields[first - 3]) + Long.parseLong(fields[second - 3]);
    }

    /** Clock ticks per second, what {@code /proc} counts in: {@code getconf CLK_TCK}. */
    static long ticksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            if (getconf.waitFor(10, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
                long ticks = Long.parseLong(out);
                if (ticks > 0) {
                    return ticks;
                }
            }
        } catch (IOException | RuntimeException e) {
            // no getconf here: Linux's usual value below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return USUAL_TICKS_PER_SECOND;
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
