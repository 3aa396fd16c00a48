package dev.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Ending and pausing the processes tests start: servers, child JVMs. */
public final class Processes {

    private static final long KILL_WAIT_SECONDS = 10;

    private Processes() {
    }

    /**
     * Asks {@code process} to end (SIGTERM), waits up to {@code grace}, then kills it and whatever
     * it started (SIGKILL) and waits until it is gone. An interrupt does not cut the wait short; it
     * is kept for the caller.
     *
     * @throws IllegalStateException if the process survives SIGKILL
     */
    public static void stop(Process process, Duration grace) {
        Interrupts interrupts = new Interrupts();
        try {
            if (!grace.isZero()) {
                process.destroy();
                if (interrupts.awaitExit(process, grace.toMillis())) {
                    return;
                }
            }
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            if (!interrupts.awaitExit(process, TimeUnit.SECONDS.toMillis(KILL_WAIT_SECONDS))) {
                throw new IllegalStateException("process " + process.pid() + " survived SIGKILL for " + KILL_WAIT_SECONDS + " s");
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

        void restore() {
            if (seen) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
