package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Ending and pausing the processes tests start: servers, child JVMs. */
public final class Processes {

    private static final long KILL_WAIT_SECONDS = 10;

    private Processes() {
    }

    /**
     * Asks {@code process} and whatever it started to end (SIGTERM), waits up to {@code grace} for
     * all of them, then kills those left (SIGKILL) and waits until they are gone. What it started
     * is ended too because a launcher script (WildFly's {@code standalone.sh}) may exit on SIGTERM
     * and leave its JVM running. An interrupt does not cut the wait short; it is kept for the caller.
     *
     * @throws IllegalStateException if a process survives SIGKILL
     */
    public static void stop(Process process, Duration grace) {
        Interrupts interrupts = new Interrupts();
        try {
            List<ProcessHandle> started = new ArrayList<>(process.descendants().toList());
            if (!grace.isZero()) {
                long deadline = System.nanoTime() + grace.toNanos();
                process.destroy();
                started.forEach(ProcessHandle::destroy);
                boolean ended = interrupts.awaitExit(process.toHandle(), deadline)
                        && started.stream().allMatch(child -> interrupts.awaitExit(child, deadline));
                if (ended) {
                    return;
                }
            }
            started.addAll(process.descendants().toList());
            started.forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            started.add(0, process.toHandle());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(KILL_WAIT_SECONDS);
            for (ProcessHandle survivor : started) {
                if (!interrupts.awaitExit(survivor, deadline)) {
                    throw new IllegalStateException("process " + survivor.pid() + " survived SIGKILL for " + KILL_WAIT_SECONDS + " s");
                }
            }
        } finally {
            interrupts.restore();
        }
    }

    /** SIGKILL to {@code process} and what it started, as on a crashed host; waits until it is gone. */
    public static void kill(Process process) {
        stop(process, Duration.ZERO);
    }

    /** Sends {@code kill -<signal>} (e.g. {@code STOP}, {@code CONT}) to {@code pid}. */
    public static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
            Interrupts interrupts = new Interrupts();
            try {
                if (!interrupts.awaitExit(kill, TimeUnit.SECONDS.toMillis(KILL_WAIT_SECONDS)) || kill.exitValue() != 0) {
                    throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
                }
            } finally {
                interrupts.restore();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + " " + pid, e);
        }
    }

    /**
     * The threads of the JVM {@code pid}, as {@code jcmd <pid> Thread.print} prints them, with the
     * {@code jcmd} beside {@code javaExecutable} (the JDK that runs it); what went wrong instead, if that fails.
     * For a process that stands still: what each of its threads waits for.
     */
    public static String threadDump(long pid, Path javaExecutable) {
        Path jcmd = javaExecutable.resolveSibling("jcmd");
        try {
            Process print = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
            CompletableFuture<byte[]> output = CompletableFuture.supplyAsync(() -> {
                try {
                    return print.getInputStream().readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            byte[] dump = output.get(KILL_WAIT_SECONDS * 3, TimeUnit.SECONDS);
            return new String(dump, StandardCharsets.UTF_8);
        } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
            return "(no thread dump of " + pid + " through " + jcmd + ": " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(no thread dump of " + pid + ": interrupted)";
        }
    }

    /** Waits that an interrupt does not cut short; the interrupt is restored at the end. */
    private static final class Interrupts {
        private boolean seen = Thread.interrupted();

        boolean awaitExit(Process process, long millis) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (true) {
                try {
                    return process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    seen = true;
                }
            }
        }

        /** Whether {@code process} ended before {@code deadline} ({@link System#nanoTime()}). */
        boolean awaitExit(ProcessHandle process, long deadline) {
            while (true) {
                try {
                    process.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return true;
                } catch (InterruptedException e) {
                    seen = true;
                } catch (TimeoutException e) {
                    return !process.isAlive();
                } catch (ExecutionException e) {
                    return !process.isAlive();
                }
            }
        }

        void restore() {
            if (seen) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
